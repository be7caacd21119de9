from django.db import migrations, models

# The matches rated so far were applied in id order: that is their place (row_number() is
# standard SQL, in PostgreSQL and SQLite >= 3.25 alike).
FILL = """
UPDATE tournaments_match SET rating_order = (
    SELECT ordered.place FROM (
        SELECT id, row_number() OVER (ORDER BY id) AS place FROM tournaments_match
        WHERE ranked AND rated_at IS NOT NULL AND status = 'finished'
    ) AS ordered WHERE ordered.id = tournaments_match.id
)
WHERE ranked AND rated_at IS NOT NULL AND status = 'finished'
"""


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0006_match_failure_count"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="rating_order",
            field=models.PositiveBigIntegerField(blank=True, null=True, unique=True),
        ),
        # Backwards, the column goes with the field: nothing to undo.
        migrations.RunSQL(FILL, migrations.RunSQL.noop, elidable=True),
    ]
