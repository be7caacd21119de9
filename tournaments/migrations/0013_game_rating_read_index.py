"""The games as the ratings read them, from an index alone (PostgreSQL only).

The Elo recompute and the whole-history fit read every rated game's seats and ranks (and deal).
Each Game row also holds its replay inline (about 800 bytes compressed, under PostgreSQL's 2 kB
TOAST threshold), so reading the games from the table reads every replay too: 1.3 GB per million
games, against 122 MB for this index, which an index-only scan reads instead (benchmarks/scale.py,
10,000,000 games). Built concurrently: writers are not held up while it builds. Not in the
models' state (a covering index of one database), so makemigrations leaves it alone.
"""

from django.db import migrations

INDEX = "tournaments_game_rating_read"


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {INDEX} ON tournaments_game (match_id, index)"
            " INCLUDE (deal, seats, ranks)"
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY runs outside a transaction
    dependencies = [("tournaments", "0012_match_chunk")]
    operations = [migrations.RunPython(create, drop, elidable=False)]
