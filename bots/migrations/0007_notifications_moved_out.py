# The notification models leave the bots app for the notifications app (notifications 0001, which
# comes after this one). Django's state only: the tables bots_notification and
# bots_notificationsettings stay as they are, rows and all, and the notifications app's models
# name them (Meta.db_table). Nothing runs on the database either way.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0006_stored_code"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="Notification"),
                migrations.DeleteModel(name="NotificationSettings"),
            ],
            database_operations=[],
        ),
    ]
