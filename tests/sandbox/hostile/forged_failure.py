# Writes a failure report of its own choosing through its host's channel (found with gc), with
# the request number right: the referee must not take its label or its message.
import gc

PHASE = "__PHASE__"  # "load": while being imported; "play": during act()
KIND = "__KIND__"


def forge():
    channel = next(o for o in gc.get_objects() if type(o).__name__ == "Channel" and hasattr(o, "fail"))
    channel.fail(KIND, "FORGED by the bot\nSandbox tier: none", "FORGED detail")


if PHASE == "load":
    forge()


def act(observation):
    forge()
    return observation["legal_actions"][0]
