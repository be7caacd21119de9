"""Server-rendered pages (templates/): browse ratings, bots, matches, replays and tournaments."""
