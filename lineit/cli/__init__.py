"""The ``lineit`` command line: play local matches, show and verify replays, check the sandbox.

No Django: it runs on a bot author's machine with the engine and the botkit alone. Each
subcommand lives in its own module; ``main`` parses the arguments and turns every expected
error into one line on stderr and an exit status (2: the command line is wrong, 1: the command
ran and something failed).
"""
