"""The hidden-information checker of the browser tests catches a planted leak (and lets a
clean game through), on games played in the core: no browser needed."""
import json
import random

import boardlab
import pytest
from boardlab.core.driver import GameDriver

from leaks import Knowledge, check_frames, check_page, distinctive
from secret_specs import CARTAGENA, CTOR_SECRETS, SEED, pile_order


def played(spec: str):
    """A seeded random game in the core, with each seat's and the spectators' frames as
    the server sends them (sync, then one update per version)."""
    driver = GameDriver(boardlab.make(spec), seed=SEED)
    viewers = [*range(driver.game.num_seats), None]
    frames = {viewer: [] for viewer in viewers}
    rng = random.Random(5)

    def send(version):
        for viewer in viewers:
            frames[viewer].append(json.dumps({"type": "update", "version": version,
                                              "seat": viewer,
                                              "view": driver.view(viewer)}))
    send(0)
    version = 0
    while not driver.over:
        seat = driver.acting()[0]
        driver.submit(seat, rng.choice(sorted(driver.view(seat)["legal"])))
        version += 1
        send(version)
    return Knowledge(driver.record(), extra=pile_order), frames


def parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


# the kinds of hidden facts each game must have at some point, seen from seat 0
SOURCES = {CARTAGENA: {"seed", "extra", "hand"},
           CTOR_SECRETS: {"seed", "my_secret_squares", "history"}}


@pytest.mark.parametrize("spec", [CARTAGENA, CTOR_SECRETS])
def test_clean_frames_pass_and_planted_leaks_are_caught(spec):
    knowledge, frames = played(spec)
    for viewer, seen in frames.items():
        check_frames(knowledge, seen, viewer)
    middle = next(version for version in range(len(knowledge.states)) if SOURCES[spec] <=
                  {source for source, _, _ in knowledge.hidden(version, 0)})
    for viewer in (0, None):
        before = frames[viewer][:middle + 1]
        own = knowledge.view(middle, viewer)
        another = next(seat for seat in range(knowledge.game.num_seats) if seat != viewer)
        with pytest.raises(AssertionError, match="not seat"):      # another seat's view
            check_frames(knowledge, before + [json.dumps(
                {"type": "update", "version": middle, "seat": viewer,
                 "view": knowledge.states[middle].view(another)})], viewer)
        with pytest.raises(AssertionError, match="not seat"):
            check_page(knowledge, "<html></html>", knowledge.view(middle, another), middle,
                       viewer)
        check_page(knowledge, "<html><body>board</body></html>", own, middle, viewer)
        for _source, as_json, text in knowledge.hidden(middle, viewer):
            if parses(as_json):             # each hidden fact planted in a frame is caught
                planted = json.dumps({"type": "update", "version": middle, "seat": viewer,
                                      "view": own})[:-1] + f', "planted": {as_json}}}'
                with pytest.raises(AssertionError, match="hidden"):
                    check_frames(knowledge, before + [planted], viewer)
            if distinctive(text):           # and each one a page could show, on the page
                with pytest.raises(AssertionError, match="hidden"):
                    check_page(knowledge, f"<html><body><p>{text}</p></body></html>", own,
                               middle, viewer)
