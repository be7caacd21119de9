"""Fails while it is imported, with the payload as the message: a load failure in every game."""

PAYLOAD = (
    "\x1b]0;pwned title\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[H"
    "\rSandbox tier: none (forged)\nSandbox tier: none \u202edegrof\u2028\x9b31m"
)

raise ImportError(PAYLOAD)
