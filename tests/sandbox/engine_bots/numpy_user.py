# A bot that thinks with numpy (an allowed package): it scores the legal actions with arrays.
# On a "report" it says where numpy came from, its threads' setting and its peak memory; on a
# "hog" it allocates an 8 GB array; on "look around" it lists the folder numpy was found in.
import json
import os
import resource

import numpy as np


class Bot:
    def act(self, observation):
        legal = observation["legal_actions"]
        if legal == ["report"]:
            return json.dumps(
                {
                    "file": np.__file__,
                    "version": np.__version__,
                    "threads": os.environ.get("OPENBLAS_NUM_THREADS"),
                    "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                }
            )
        if legal == ["hog"]:
            return str(np.ones(10**9).sum())
        if legal == ["look around"]:
            beside = os.path.dirname(os.path.dirname(np.__file__))
            found = {"beside": sorted(os.listdir(beside))}
            try:
                found["site"] = sorted(os.listdir(os.path.dirname(os.path.realpath(os.path.dirname(np.__file__)))))
            except OSError as error:
                found["site"] = type(error).__name__
            try:
                import networkx  # noqa: F401  installed next to numpy, but not allowed
            except ImportError as error:
                found["networkx"] = type(error).__name__
            return json.dumps(found)
        weights = np.array([len(action) for action in legal], dtype=float) @ np.eye(len(legal))
        return legal[int(np.argmax(weights))]
