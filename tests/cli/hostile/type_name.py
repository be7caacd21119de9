"""Returns an object whose class is named by the payload: not an action string (protocol), and
the referee's message names the type."""

PAYLOAD = (
    "\x1b]0;pwned title\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[H"
    "\rSandbox tier: none (forged)\nSandbox tier: none \u202edegrof\u2028\x9b31m"
)

Hostile = type(PAYLOAD, (), {})


def act(observation):
    return Hostile()
