from django.db import migrations, models

# Each existing match's count of its games' failures, as match_record_result writes it from now
# on (standard SQL: PostgreSQL and SQLite alike).
FILL = """
UPDATE tournaments_match SET failure_count = (
    SELECT count(*) FROM tournaments_gamefailure WHERE tournaments_gamefailure.match_id = tournaments_match.id
)
WHERE id IN (SELECT match_id FROM tournaments_gamefailure)
"""


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_match_entrant_summary"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="failure_count",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        # Backwards, the column goes with the field: nothing to undo.
        migrations.RunSQL(FILL, migrations.RunSQL.noop, elidable=True),
    ]
