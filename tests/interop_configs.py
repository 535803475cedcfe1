"""The game configurations the interop adapters are checked on (tests/test_interop_*):
every game, sizes, profiles, player counts, teams, secret squares and both team
protocols, each kept short (small boards, few turns) so that a check takes seconds."""
import boardlab

CONFIGS = [
    "carteso(size=3)",
    "carteso(size=4,komi_protocol=bid)",
    "carteso(size=5,button=false,komi=0)",
    "rumbo(size=3)",
    "rumbo(size=4,komi_protocol=bid)",
    "cartagena(max_turns=30)",
    "cartagena(players=3,profile=advanced,max_turns=20)",
    "cartagena(players=5,profile=original,visibility=hispaniola,max_turns=15)",
    "cartagena(profile=advanced,hand_limit=7,allow_voluntary_pass=true,visibility=tortuga,"
    "max_turns=20)",
    "ctor(size=8,max_turns=4)",
    "ctor(size=8,teams=2v2,secret_squares=true,secret_count=1,max_turns=4)",
    "ctor(size=8,teams=1v2,max_turns=4)",
    "ctor(size=8,teams=3v3,secret_squares=true,secret_count=2,end_check=end_of_turn,"
    "max_turns=4)",
    "ctor(size=8,teams=2v2,team_protocol=simultaneous,secret_squares=true,secret_count=1,"
    "max_turns=4)",
    "ctor(size=10,teams=2v3,team_protocol=simultaneous,max_turns=5)",
]

#: the configurations that hide information and can sample what a seat cannot see
HIDDEN = [spec for spec in CONFIGS if not boardlab.make(spec).perfect_information
          and boardlab.make(spec).can_sample]
