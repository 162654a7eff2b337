"""aiohttp-session's Redis storage, degrading instead of failing when Redis does not answer.

A session that cannot be read makes the request signed out (the sign-in page, or the API's 401),
never a 503 with a traceback, and is not written over, so the browser keeps its cookie for when
Redis answers again. A session that cannot be written is lost for that request. Both are counted
in `redis_errors_total{operation="session_load" | "session_save"}` and logged in one line.
"""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp_session import Session
from aiohttp_session.redis_storage import RedisStorage
from redis.exceptions import RedisError

from libs.common.metrics import REDIS_ERRORS

log = logging.getLogger(__name__)

UNREADABLE: web.RequestKey[bool] = web.RequestKey("session_unreadable", bool)


class SessionStorage(RedisStorage):
    async def load_session(self, request: web.Request) -> Session:
        try:
            return await super().load_session(request)
        except (RedisError, OSError) as exc:
            REDIS_ERRORS.labels("session_load").inc()
            log.warning("session not read, request served signed out: Redis did not answer (%r)", exc)
            request[UNREADABLE] = True
            return Session(None, data=None, new=True, max_age=self.max_age)

    async def save_session(self, request: web.Request, response: web.StreamResponse, session: Session) -> None:
        if request.get(UNREADABLE):
            return
        try:
            await super().save_session(request, response, session)
        except (RedisError, OSError) as exc:
            REDIS_ERRORS.labels("session_save").inc()
            log.warning("session not saved: Redis did not answer (%r)", exc)
