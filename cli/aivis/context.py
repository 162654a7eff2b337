"""What every command is given: the profile and the base URL it works against."""

from __future__ import annotations

from dataclasses import dataclass

import click

from aivis import config
from aivis.api import Api
from aivis.errors import EXIT_VALIDATION, CliError


@dataclass
class Context:
    profile: str
    base_url_option: str | None

    def base_url(self) -> str:
        """--base-url (or AIVIS_BASE_URL), else the profile's, else the local gateway."""
        if self.base_url_option:
            return self.base_url_option.rstrip("/")
        profile = config.load_profile(self.profile)
        if profile is not None:
            return str(profile["base_url"])
        return config.DEFAULT_BASE_URL

    def api(self) -> Api:
        return Api(self.profile, self.base_url())

    def organization_id(self, option: str | None) -> str:
        """The organization a path needs: --org, else the signed-in one."""
        if option:
            return option
        profile = config.load_profile(self.profile)
        if profile is not None and self.api().api_key is None:
            return str(profile["organization"]["id"])
        raise CliError("give the organization id with --org (or AIVIS_ORG_ID)", EXIT_VALIDATION)


pass_context = click.make_pass_decorator(Context)
