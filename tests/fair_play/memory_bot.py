"""A bot that remembers every deal it has played, in its process's memory and in any file it can
write, and fails loudly ("deal seen twice") when a deal comes back: the fair-play invariant says
no bot process ever meets one deal twice (docs/bot-interface.md, "One deal, one process").

A deal is told by the cards seen at the bot's first decision of a game: the first market, the
same in every seat rotation of a duplicate deal."""

import os

SEEN = set()
PLACES = [os.getcwd(), "/tmp", "/dev/shm", "/var/tmp", os.path.dirname(os.path.abspath(__file__))]


def _remembered(key):
    if key in SEEN:
        return True
    for place in PLACES:
        try:
            if os.path.exists(os.path.join(place, f".lineit-memory-{key}")):
                return True
        except OSError:
            pass
    return False


def _remember(key):
    SEEN.add(key)
    for place in PLACES:
        try:
            with open(os.path.join(place, f".lineit-memory-{key}"), "w") as handle:
                handle.write("seen")
        except OSError:
            pass  # read-only here: the sandbox lets it write nowhere


class Bot:
    def start_game(self, info):
        self.first = True

    def act(self, observation):
        if self.first:
            self.first = False
            seen = sorted(set(range(1, 107)) - set(observation["unseen"]))
            key = "-".join(map(str, seen))
            if _remembered(key):
                raise RuntimeError(f"deal seen twice in one process: {key}")
            _remember(key)
        legal = observation["legal_actions"]
        return legal[len(observation["unseen"]) % len(legal)]
