"""Read-only queries the pages and the API share, by domain: ``matches`` (lists of matches, a match
with its games, head-to-head records), ``ratings`` (the leaderboard), ``tournaments`` (rounds,
standings and bracket), and ``names`` (the names shown beside ids). Nothing here writes
(services/ do)."""
