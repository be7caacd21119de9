"""What a replay costs to send: the viewer's page and its view JSON, plain and gzipped, for games
of 2, 3 and 5 players played by the built-in bots on a scratch platform.

    .venv/bin/python benchmarks/replay_weight.py [--database lineit_bench_replay --redis-db 13]

"embedded" is the page as it was before the viewer fetched its data: this page plus the
``json_script`` block the template used to end with (``{{ view|json_script:"replay-data" }}``),
rendered here with Django's own ``json_script`` on the same view. Sizes are bytes of the body
as sent by the Django test client (the full middleware stack, GZipMiddleware included).
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scratch import scratch_platform


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="lineit_bench_replay")
    parser.add_argument("--redis-db", type=int, default=13)
    arguments = parser.parse_args()
    scratch_platform(arguments.database, redis_db=arguments.redis_db, fresh=True)

    from django.test import Client
    from django.urls import reverse
    from django.utils.html import json_script

    from bots.models import BotVersion
    from bots.services import builtin_bots_register
    from lineit_platform.web.replay import replay_view
    from tournaments.models import Game
    from tournaments.services.matches.execution import match_execute
    from tournaments.services.matches.states import match_schedule

    builtin_bots_register(names=("random", "greedy", "heuristic"))
    builtins = list(BotVersion.objects.filter(bot__is_builtin=True).order_by("id"))
    client = Client(HTTP_HOST="localhost")
    print(f"{'players':>7} {'embedded':>9} {'page':>7} {'page.gz':>8} {'view':>7} {'view.gz':>8} {'replay.gz':>9}")
    for players in (2, 3, 5):
        versions = [builtins[seat % len(builtins)] for seat in range(players)]
        match = match_schedule(versions=versions, games=1, ranked=False, seed=players)
        finished = match_execute(match_id=match.pk, worker="bench")
        assert finished is not None and finished.status == "finished", finished
        game = Game.objects.get(match=finished, index=0)
        page = client.get(reverse("replay-viewer", args=[game.pk]))
        assert page.status_code == 200, page.status_code
        page_gz = client.get(reverse("replay-viewer", args=[game.pk]), headers={"Accept-Encoding": "gzip"})
        view = client.get(reverse("replay-view-json", args=[game.pk]))
        view_gz = client.get(reverse("replay-view-json", args=[game.pk]), headers={"Accept-Encoding": "gzip"})
        replay_gz = client.get(reverse("replay-json", args=[game.pk]), headers={"Accept-Encoding": "gzip"})
        assert page_gz["Content-Encoding"] == view_gz["Content-Encoding"] == "gzip"
        assert gzip.decompress(view_gz.content) == view.content
        embedded = len(page.content) + len(json_script(replay_view(game.replay_document()), "replay-data").encode())
        print(
            f"{players:>7} {embedded:>9} {len(page.content):>7} {len(page_gz.content):>8} {len(view.content):>7}"
            f" {len(view_gz.content):>8} {len(replay_gz.content):>9}"
        )


if __name__ == "__main__":
    main()
