/* A tiny boardlab engine in C (protocol 1, docs/engine-protocol.md): a random legal move.
 *
 *   cc -O2 -o random_engine examples/engines/random_engine.c
 *   boardlab match "rumbo(size=9)" "engine(cmd=./random_engine 7)" random
 *
 * It reads one command per line, keeps the last "legal" line, and answers "go" with one of
 * its moves (they are separated by " | "). The first argument seeds it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE (1 << 20)

static char line[MAX_LINE];
static char legal[MAX_LINE];

/* Number of moves in a "legal" payload: separators " | " plus one. */
static int count_moves(const char *moves) {
    int n = *moves ? 1 : 0;
    for (const char *p = moves; (p = strstr(p, " | ")) != NULL; p += 3) n++;
    return n;
}

/* Print the k-th move (0-based) of a "legal" payload as "move ...". */
static void play_move(const char *moves, int k) {
    const char *start = moves, *end;
    while (k-- > 0) start = strstr(start, " | ") + 3;
    end = strstr(start, " | ");
    int length = end ? (int)(end - start) : (int)strlen(start);
    printf("move %.*s\n", length, start);
    fflush(stdout);
}

static int starts_with(const char *text, const char *word) {
    size_t n = strlen(word);
    return strncmp(text, word, n) == 0 && (text[n] == ' ' || text[n] == '\0');
}

int main(int argc, char **argv) {
    srand(argc > 1 ? (unsigned)atoi(argv[1]) : 1u);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (starts_with(line, "boardlab")) {
            printf("id name random-c\nid author boardlab examples\nok 1\n");
            fflush(stdout);
        } else if (starts_with(line, "legal")) {
            strcpy(legal, line + (line[5] ? 6 : 5));
        } else if (starts_with(line, "go")) {
            int n = count_moves(legal);
            if (n == 0) {
                fprintf(stderr, "random-c: go without legal moves\n");
                return 1;
            }
            play_move(legal, rand() % n);
        } else if (starts_with(line, "quit")) {
            break;
        }
        /* newgame, seats, seat, played, view and gameover need no answer */
    }
    return 0;
}
