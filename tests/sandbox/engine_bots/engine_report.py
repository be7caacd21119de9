# Simulates with the engine (determinize, clone, apply, score) to choose each action, and when
# asked for a "report" says which engine it imported: its implementation, rules version, files.
import hashlib
import json
import os
import random

import lineit.engine
from lineit.engine import determinize
from lineit.engine import state as state_module


class Bot:
    def act(self, observation):
        legal = observation["legal_actions"]
        if legal == ["report"]:
            folder = os.path.dirname(lineit.engine.__file__)
            files = {}
            for name in sorted(os.listdir(folder)):
                if os.path.isfile(os.path.join(folder, name)):
                    with open(os.path.join(folder, name), "rb") as handle:
                        files[name] = hashlib.sha256(handle.read()).hexdigest()
            return json.dumps(
                {
                    "implementation": lineit.engine.IMPLEMENTATION,
                    "rules_version": lineit.engine.RULES_VERSION,
                    "state_module": os.path.basename(state_module.__file__),
                    "files": files,
                }
            )
        world = determinize(observation, random.Random(len(legal)))
        seat = observation["seat"]
        before = world.scores()[seat]

        def gain(action):
            state = world.clone()
            state.apply(action)
            return state.scores()[seat] - before

        return max(legal, key=gain)
