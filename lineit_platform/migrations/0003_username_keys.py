# The keys of every user's name (lineit_platform/confusables.py), so that no new user can take a
# name a reader could take for an existing one. Users who already have look-alike names keep them:
# the later one's keys are made unique with its id (it can still be renamed by staff) and each
# such pair is printed for the operators.

import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from lineit_platform.confusables import folded_key, name_key


def write_keys(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    UsernameKey = apps.get_model("lineit_platform", "UsernameKey")
    taken = {}
    for pk, username in User.objects.order_by("pk").values_list("pk", "username").iterator():
        keys = {"name_key": name_key(username), "folded_key": folded_key(username)}
        for field, key in keys.items():
            if key in taken:
                print(f"\n  users {taken[key]!r} and {username!r} have look-alike names: both kept")
                keys[field] = hashlib.sha256(f"{key}:{pk}".encode()).hexdigest()
            taken[keys[field]] = username
        UsernameKey.objects.create(user_id=pk, username=username, **keys)


class Migration(migrations.Migration):

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
        ('lineit_platform', '0002_tallied_matches'),
    ]

    operations = [
        migrations.CreateModel(
            name='UsernameKey',
            fields=[
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='username_key', serialize=False, to=settings.AUTH_USER_MODEL)),
                ('username', models.CharField(max_length=150)),
                ('name_key', models.CharField(max_length=64, unique=True)),
                ('folded_key', models.CharField(max_length=64, unique=True)),
            ],
        ),
        migrations.RunPython(write_keys, migrations.RunPython.noop),
    ]
