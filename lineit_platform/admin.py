"""The admin's user pages: Django's, with the one rule it does not know, no name a reader could
take for another user's (lineit_platform/accounts.py: username_check), said as a form error. The
database refuses one anyway (UsernameKey's unique keys)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from lineit_platform.accounts import username_check


class UserCreation(AdminUserCreationForm):
    def clean_username(self) -> str:
        username: str | None = super().clean_username()  # None: refused already (another case)
        if username:
            username_check(username)
        return username or ""


class UserChange(UserChangeForm):
    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        username_check(username, user=self.instance)
        return username


class PlatformUserAdmin(UserAdmin):
    form = UserChange
    add_form = UserCreation


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, PlatformUserAdmin)
