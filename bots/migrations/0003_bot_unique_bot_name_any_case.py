from django.db import migrations, models
from django.db.models.functions import Lower


def refuse_names_taken_twice(apps, schema_editor):
    """The constraint cannot be made while two bots share a name in different case (the API let
    that happen): say which, so that one can be renamed in the admin first."""
    Bot = apps.get_model("bots", "Bot")
    taken = (
        Bot.objects.annotate(lowered=Lower("name"))
        .values("lowered")
        .annotate(count=models.Count("id"))
        .filter(count__gt=1)
        .values_list("lowered", flat=True)
    )
    clashes = [sorted(Bot.objects.filter(name__iexact=name).values_list("name", flat=True)) for name in taken]
    if clashes:
        listed = "; ".join(", ".join(names) for names in clashes)
        raise RuntimeError(f"bot names that differ only in case: {listed}. Rename all but one of each, then migrate.")


class Migration(migrations.Migration):

    dependencies = [
        ("bots", "0002_botversion_validation_sent_at"),
    ]

    operations = [
        migrations.RunPython(refuse_names_taken_twice, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="bot",
            constraint=models.UniqueConstraint(Lower("name"), name="unique_bot_name_any_case"),
        ),
    ]
