"""What every command is given: the profile, the base URL, the API client and the output."""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from aivis import config
from aivis.api import Api
from aivis.errors import EXIT_VALIDATION, CliError
from aivis.factory import Factory
from aivis.output import Output


@dataclass
class Context:
    profile: str
    base_url_option: str | None
    factory: Factory
    _api: Api | None = field(default=None, init=False)

    @property
    def out(self) -> Output:
        return Output(self.factory)

    def base_url(self) -> str:
        """--base-url (or AIVIS_BASE_URL), else the profile's, else the local gateway."""
        if self.base_url_option:
            return self.base_url_option.rstrip("/")
        profile = config.load_profile(self.profile)
        if profile is not None:
            return str(profile["base_url"])
        return config.DEFAULT_BASE_URL

    def api(self, base_url: str | None = None) -> Api:
        """The command's API client (one connection pool, closed when the command ends)."""
        url = (base_url or self.base_url()).rstrip("/")
        if self._api is None or self._api.base_url != url:
            client = click.get_current_context().with_resource(self.factory.http_client(url))
            self._api = Api(self.profile, url, client)
        return self._api

    def organization_id(self, option: str | None) -> str:
        """The organization a path needs: --org, else the signed-in one."""
        if option:
            return option
        profile = config.load_profile(self.profile)
        if profile is not None and self.api().api_key is None:
            return str(profile["organization"]["id"])
        raise CliError("give the organization id with --org (or AIVIS_ORG_ID)", EXIT_VALIDATION)


pass_context = click.make_pass_decorator(Context)
