"""What the browsing pages cost over a big platform: /matches/ (plain, filtered by bot and by
version, a deep page), /bots/, /leaderboard/ (per table size too), a user's page and the home
page, each with the API's match list (/api/matches/) as the reference, measured interleaved in
one run. Prints each page's median time in ms, its ratio to the API's list and its queries.

    .venv/bin/python benchmarks/browse_pages.py [--matches 100000] [--bots 200] [--rounds 15]

Its own database (lineit_browse_bench, Redis db 2 unless DATABASE_URL / CELERY_BROKER_URL say
otherwise), filled once (rerun with --fresh to refill)."""

from __future__ import annotations

import argparse
import statistics
import time

from scratch import scratch_platform


def fill(*, matches: int, bots: int) -> None:
    from django.contrib.auth import get_user_model

    from bots.models import Bot, BotVersion
    from lineit.engine import RULES_VERSION
    from tournaments.models import Match, MatchEntrant, Rating
    from tournaments.services.matches.results import entrant_summary

    if Match.objects.count() >= matches:
        return
    users = get_user_model().objects.bulk_create(get_user_model()(username=f"user{n}") for n in range(bots // 4))
    made = Bot.objects.bulk_create(Bot(owner=users[n % len(users)], name=f"bench-bot-{n}") for n in range(bots))
    versions = BotVersion.objects.bulk_create(
        BotVersion(
            bot=bot,
            number=1,
            kind="py",
            original_name="bot.py",
            status="active",
            sha256=f"{n:064x}",
            size=1,
            uploaded_by=bot.owner,
        )
        for n, bot in enumerate(made)
    )
    Rating.objects.bulk_create(
        Rating(version=version, ruleset="standard", rules_version=RULES_VERSION, rating=1500 + n, games=40)
        for n, version in enumerate(versions)
    )
    chunk = 5000
    for start in range(0, matches, chunk):
        rows = Match.objects.bulk_create(
            Match(
                ruleset="standard",
                rules_version=RULES_VERSION,
                num_players=2 + (n % 4 == 0),
                games=2,
                seed=n,
                ranked=True,
                status="finished",
            )
            for n in range(start, min(start + chunk, matches))
        )
        entrants = MatchEntrant.objects.bulk_create(
            MatchEntrant(
                match=match,
                index=i,
                version=versions[(match.seed * 7 + i * 13) % len(versions)],
                total_score=10 - i,
                mean_rank=1.0 + i,
                wins=2 - i,
            )
            for match in rows
            for i in range(match.num_players)
        )
        by_match: dict[int, list[MatchEntrant]] = {}
        for entrant in entrants:
            by_match.setdefault(entrant.match_id, []).append(entrant)
        for match in rows:
            match.entrant_summary = entrant_summary(by_match[match.pk])
        Match.objects.bulk_update(rows, ["entrant_summary"], batch_size=1000)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as autovacuum would, before the plans are measured


def measure(client: object, url: str) -> tuple[float, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        started = time.perf_counter()
        response = client.get(url)  # type: ignore[attr-defined]
        elapsed = time.perf_counter() - started
    assert response.status_code == 200, (url, response.status_code)
    return elapsed * 1000, len(captured)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--fresh", action="store_true")
    options = parser.parse_args()
    scratch_platform("lineit_browse_bench", redis_db=2, fresh=options.fresh)
    from django.conf import settings
    from django.test import Client

    settings.ALLOWED_HOSTS = ["testserver", *settings.ALLOWED_HOSTS]
    fill(matches=options.matches, bots=options.bots)
    pages = [
        "/api/matches/",
        "/matches/",
        "/matches/?bot=bench-bot-7",
        "/matches/?bot=bench-bot-7&version=1",
        "/matches/?players=3&ranked=yes",
        "/matches/?page=2000",
        "/bots/",
        "/bots/?search=bot-1",
        "/leaderboard/",
        "/leaderboard/?players=3",
        "/users/user3/",
        "/",
    ]
    client = Client()
    for url in pages:  # warm: names kept, plans cached
        measure(client, url)
    times: dict[str, list[float]] = {url: [] for url in pages}
    counts: dict[str, int] = {}
    for _ in range(options.rounds):
        for url in pages:
            elapsed, count = measure(client, url)
            times[url].append(elapsed)
            counts[url] = count
    reference = statistics.median(times["/api/matches/"])
    print(f"{options.matches} matches, {options.bots} bots, median of {options.rounds} interleaved rounds")
    print(f"{'page':42} {'ms':>8} {'x API':>7} {'queries':>8}")
    for url in pages:
        median = statistics.median(times[url])
        print(f"{url:42} {median:8.1f} {median / reference:7.2f} {counts[url]:8d}")


if __name__ == "__main__":
    main()
