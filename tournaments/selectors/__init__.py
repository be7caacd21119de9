"""Read-only queries the pages and the API share, by domain: ``matches`` (head-to-head records) and
``tournaments`` (rounds, standings and bracket). Nothing here writes (services/ do)."""
