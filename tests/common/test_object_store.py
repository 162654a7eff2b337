"""The file object store: written whole, read back, keys kept inside its directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from libs.common.object_store import FileObjectStore, object_store, store_setting
from libs.common.settings import SettingsError


async def test_an_object_is_read_back_as_written_and_replaced_whole(tmp_path: Path):
    store = FileObjectStore(tmp_path)
    assert await store.get("runs/1/steps.jsonl") is None
    await store.put("runs/1/steps.jsonl", b'{"seq": 1}\n', "application/jsonl")
    assert await store.get("runs/1/steps.jsonl") == b'{"seq": 1}\n'
    await store.put("runs/1/steps.jsonl", b"again\n", "application/jsonl")
    assert await store.get("runs/1/steps.jsonl") == b"again\n"
    assert [path.name for path in (tmp_path / "runs" / "1").iterdir()] == ["steps.jsonl"]
    assert store.name == f"file:{tmp_path}"


@pytest.mark.parametrize("key", ["", "/etc/passwd", "runs/../../x", "runs//x", "./x"])
async def test_a_key_outside_the_store_is_refused(tmp_path: Path, key: str):
    with pytest.raises(ValueError, match="relative path"):
        await FileObjectStore(tmp_path).put(key, b"x", "text/plain")


def test_the_setting_names_postgres_or_an_absolute_directory(tmp_path: Path):
    assert store_setting("S", "postgres") == "postgres"
    assert isinstance(object_store(store_setting("S", f"file:{tmp_path}"), None, "s"), FileObjectStore)
    for wrong in ("s3://bucket", "file:relative/dir", ""):
        with pytest.raises(SettingsError, match="S must be postgres or file"):
            store_setting("S", wrong)
