"""Statistics of the kit, one module each: ``elo`` (ratings of games of 2 to 5 players), ``sprt``
(is a new version better? fishtest's sequential test) and ``intervals`` (confidence intervals).
Pure: no Django, no I/O."""
