# The sha256 of each copy of bot code in the database, as it is now: from here on a file under
# MEDIA_ROOT whose bytes are not those is read as damaged (bots/storage.py). A copy already damaged
# before this migration is not detected by it; the versions' own sha256 (bots/code_cache.py) still
# refuses its bytes.

import hashlib

from django.db import migrations, models


def digest_copies(apps, schema_editor):
    StoredCode = apps.get_model("bots", "StoredCode")
    for name in StoredCode.objects.filter(sha256="").values_list("name", flat=True).iterator():
        content = StoredCode.objects.filter(name=name).values_list("content", flat=True).first()
        StoredCode.objects.filter(name=name).update(sha256=hashlib.sha256(bytes(content)).hexdigest())


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0007_notifications_moved_out'),
    ]

    operations = [
        migrations.AddField(
            model_name='storedcode',
            name='sha256',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.RunPython(digest_copies, migrations.RunPython.noop),
    ]
