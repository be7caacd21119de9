# The key of every bot's name (lineit_platform/confusables.py), unique, so that no new bot can take
# a name a reader could take for an existing one's. Bots that already have look-alike names keep
# them: the later one's key is made unique with its id, and each such pair is printed for the
# operators.

import hashlib

from django.db import migrations, models

from lineit_platform.confusables import name_key


def write_keys(apps, schema_editor):
    Bot = apps.get_model("bots", "Bot")
    taken = {}
    for pk, name in Bot.objects.order_by("pk").values_list("pk", "name").iterator():
        key = name_key(name)
        if key in taken:
            print(f"\n  bots {taken[key]!r} and {name!r} have look-alike names: both kept")
            key = hashlib.sha256(f"{key}:{pk}".encode()).hexdigest()
        taken[key] = name
        Bot.objects.filter(pk=pk).update(name_key=key)


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0008_stored_code_sha256'),
    ]

    operations = [
        migrations.AddField(
            model_name='bot',
            name='name_key',
            field=models.CharField(editable=False, max_length=64, null=True),
        ),
        migrations.RunPython(write_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='bot',
            name='name_key',
            field=models.CharField(editable=False, max_length=64, unique=True),
        ),
    ]
