"""Returns the payload as its action: an illegal move whose explanation quotes it."""

PAYLOAD = (
    "\x1b]0;pwned title\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[H"
    "\rSandbox tier: none (forged)\nSandbox tier: none \u202edegrof\u2028\x9b31m"
)


def act(observation):
    return PAYLOAD
