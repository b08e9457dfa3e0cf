#!/usr/bin/env bash
# xiaoting installer. Idempotent: running it again only does what is missing.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: ./install.sh [--dev] [--dry-run] [--profile NAME] [--no-apt] [--no-models] [--help]

Without --dev (on a Raspberry Pi or another Debian machine, as root):
  apt packages, a system user `xiaoting` (groups audio, gpio where they exist),
  a venv in /opt/xiaoting/venv, config in /etc/xiaoting/config.toml (mode 0600, written
  only when missing), state in /var/lib/xiaoting, models (profile `device`), and the
  systemd service xiaoting.service enabled and started.

--dev         a development setup in this clone: .venv with the test tools, models of
              profile `ci` linked into ./models from the shared cache; no user, no service.
--dry-run     print every action without doing it.
--profile N   model profile to fetch (device, ci, ci-large).
--no-apt      do not install Debian packages (they must be there already).
--no-models   do not fetch models.

llama-cpp-python is built from source: natively on aarch64, with -DGGML_NATIVE=OFF on
x86_64 (a native build crashes on CPUs with AMX). Built wheels are cached per version and
build flags, so a re-run never reuses a wheel built with other flags.
EOF
}

LLAMA_VERSION="0.3.36"
MODE=system
DRY=0
PROFILE=""
APT=1
MODELS=1
CONFIG_NEW=0
SMALL_LLM="qwen2.5-coder-0.5b-instruct-q4_k_m"
while [ $# -gt 0 ]; do
  case "$1" in
    --dev) MODE=dev ;;
    --dry-run) DRY=1 ;;
    --profile) PROFILE="${2:?--profile needs a name}"; shift ;;
    --profile=*) PROFILE="${1#*=}" ;;
    --no-apt) APT=0 ;;
    --no-models) MODELS=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ARCH="$(uname -m)"
PYTHON="${PYTHON:-python3}"

say() { printf '==> %s\n' "$*"; }
run() {
  if [ "$DRY" = 1 ]; then printf '    would run: %s\n' "$*"; else "$@"; fi
}
as_root() {
  if [ "$(id -u)" = 0 ]; then run "$@"; elif command -v sudo >/dev/null; then run sudo "$@"; else
    echo "install.sh: '$*' needs root (run as root or install sudo)" >&2; exit 1; fi
}

if [ "$MODE" = dev ]; then
  VENV="$HERE/.venv"
  PROFILE="${PROFILE:-ci}"
  CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/xiaoting"
  MODELS_DIR="$HERE/models"
  MODEL_CACHE="${XIAOTING_MODEL_CACHE:-$CACHE/models}"
else
  if [ "$(id -u)" != 0 ] && [ "$DRY" = 0 ]; then
    echo "install.sh: the system install needs root (sudo ./install.sh), or use --dev" >&2
    exit 1
  fi
  VENV=/opt/xiaoting/venv
  PROFILE="${PROFILE:-device}"
  CACHE=/var/cache/xiaoting
  MODELS_DIR=/var/lib/xiaoting/models
  MODEL_CACHE="$MODELS_DIR"
fi
WHEELS="$CACHE/wheels"

# ---------------------------------------------------------------- Debian packages
APT_PACKAGES=(libasound2-dev alsa-utils cmake build-essential python3-venv python3-dev)
[ "$MODE" = dev ] && APT_PACKAGES+=(espeak-ng sox systemd)  # systemd: systemd-analyze for the unit test
# tests/web drive the household's page in Debian's chromium (Playwright never downloads one)
[ "$MODE" = dev ] && APT_PACKAGES+=(chromium fonts-noto-cjk)
if [ "$APT" = 1 ] && command -v apt-get >/dev/null; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    say "Debian packages present"
  fi
elif [ "$APT" = 1 ]; then
  say "no apt-get here: make sure these are installed: ${APT_PACKAGES[*]}"
fi

# ---------------------------------------------------------------- system user and folders
if [ "$MODE" = system ]; then
  if ! id xiaoting >/dev/null 2>&1; then
    say "creating system user xiaoting"
    run useradd --system --home-dir /var/lib/xiaoting --shell /usr/sbin/nologin xiaoting
  fi
  for g in audio gpio; do
    if getent group "$g" >/dev/null; then
      id -nG xiaoting 2>/dev/null | tr ' ' '\n' | grep -qx "$g" || run usermod -aG "$g" xiaoting
    fi
  done
  run install -d -m 0755 /opt/xiaoting
  run install -d -m 0750 -o xiaoting -g xiaoting /var/lib/xiaoting "$MODELS_DIR"
  # The library is listable by every user (`ls /var/lib/xiaoting/library`); books are added
  # with `sudo xiaoting library add FOLDER`, which gives them to the service user.
  run install -d -m 0755 -o xiaoting -g xiaoting /var/lib/xiaoting/library
  run chmod 0751 /var/lib/xiaoting
  run install -d -m 0755 "$CACHE" "$WHEELS"
  # The page's settings are written back to the config by the service user (a temporary
  # file renamed into place), so the folder is theirs; the config stays mode 0600.
  run install -d -m 0755 -o xiaoting -g xiaoting /etc/xiaoting
fi

# ---------------------------------------------------------------- venv
if [ ! -x "$VENV/bin/python" ]; then
  say "creating venv $VENV"
  run "$PYTHON" -m venv "$VENV"
  run "$VENV/bin/pip" install -q --upgrade pip
else
  say "venv $VENV present"
fi
PIP=("$VENV/bin/pip" install -q --disable-pip-version-check)

# ---------------------------------------------------------------- llama-cpp-python
case "$ARCH" in
  x86_64|amd64) CMAKE_FLAGS="-DGGML_NATIVE=OFF" ;;
  *) CMAKE_FLAGS="" ;;   # aarch64 (Pi): the native build is right
esac
KEY="$(printf '%s %s' "$LLAMA_VERSION" "$CMAKE_FLAGS" | sha256sum | cut -c1-12)"
WHEEL_DIR="$WHEELS/llama-cpp-python-$LLAMA_VERSION-$ARCH-$KEY"
SDIST="$WHEELS/sdist/llama_cpp_python-$LLAMA_VERSION.tar.gz"
if "$VENV/bin/python" -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" 2>/dev/null \
   && [ -f "$VENV/.llama-build-key" ] && [ "$(cat "$VENV/.llama-build-key")" = "$KEY" ]; then
  say "llama-cpp-python $LLAMA_VERSION present (flags: ${CMAKE_FLAGS:-native})"
else
  if [ ! -f "$SDIST" ]; then
    say "downloading the llama-cpp-python $LLAMA_VERSION source"
    run mkdir -p "$WHEELS/sdist"
    run "$VENV/bin/pip" download -q --no-deps --no-binary :all: -d "$WHEELS/sdist" "llama-cpp-python==$LLAMA_VERSION"
  fi
  if ! ls "$WHEEL_DIR"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    say "building llama-cpp-python $LLAMA_VERSION from source (flags: ${CMAKE_FLAGS:-native}; takes 5-15 minutes)"
    run mkdir -p "$WHEEL_DIR.tmp"
    run env CMAKE_ARGS="$CMAKE_FLAGS" "$VENV/bin/pip" wheel --no-cache-dir --no-deps -w "$WHEEL_DIR.tmp" "$SDIST"
    run mv "$WHEEL_DIR.tmp" "$WHEEL_DIR"
  fi
  say "installing llama-cpp-python from $WHEEL_DIR"
  # shellcheck disable=SC2046
  run "${PIP[@]}" --force-reinstall --no-deps $(ls "$WHEEL_DIR"/llama_cpp_python-*.whl 2>/dev/null || echo "$WHEEL_DIR/llama_cpp_python.whl")
  run "${PIP[@]}" "numpy>=1.20" "typing-extensions>=4.5" "diskcache>=5.6.1" "jinja2>=2.11.3"
  if [ "$DRY" = 0 ]; then echo "$KEY" > "$VENV/.llama-build-key"; fi
fi

# ---------------------------------------------------------------- xiaoting itself
if [ "$MODE" = dev ]; then
  say "installing xiaoting (editable) with the device and dev extras"
  run "${PIP[@]}" -e "$HERE[device,dev]"
else
  say "installing xiaoting with the device extras"
  run "${PIP[@]}" "$HERE[device]"
  run ln -sf "$VENV/bin/xiaoting" /usr/local/bin/xiaoting
fi

# ---------------------------------------------------------------- config
if [ "$MODE" = system ]; then
  if [ -e /etc/xiaoting/config.toml ]; then
    say "keeping the existing /etc/xiaoting/config.toml"
  else
    say "writing /etc/xiaoting/config.toml (mode 0600) from config.example.toml"
    run install -m 0600 -o xiaoting -g xiaoting "$HERE/config.example.toml" /etc/xiaoting/config.toml
    CONFIG_NEW=1
  fi
fi

# ---------------------------------------------------------------- models
if [ "$MODELS" = 1 ]; then
  say "fetching models of profile $PROFILE into $MODELS_DIR (cache: $MODEL_CACHE)"
  if [ "$MODE" = system ]; then
    run runuser -u xiaoting -- "$VENV/bin/xiaoting" models fetch --profile "$PROFILE" \
      --models-dir "$MODELS_DIR" --cache-dir "$MODEL_CACHE"
  else
    run "$VENV/bin/xiaoting" models fetch --profile "$PROFILE" --models-dir "$MODELS_DIR" \
      --cache-dir "$MODEL_CACHE"
  fi
fi

# ---------------------------------------------------------------- the LLM by this machine's speed
# A short llama.cpp probe measures decode tokens/s; the 1.5B is kept when it decodes fast
# enough here, else the 0.5B is fetched and configured (`xiaoting models probe`).
if [ "$MODE" = dev ]; then
  PROBE=("$VENV/bin/xiaoting" models probe --models-dir "$MODELS_DIR")
else
  PROBE=(runuser -u xiaoting -- "$VENV/bin/xiaoting" models probe --config /etc/xiaoting/config.toml
         --models-dir "$MODELS_DIR")
  [ "$CONFIG_NEW" = 1 ] && PROBE+=(--write-config /etc/xiaoting/config.toml)
fi
if [ "$MODELS" = 0 ]; then
  say "--no-models: the decode probe cannot run without the model files; keeping the configured LLM"
elif [ "$DRY" = 1 ]; then
  say "measuring the decode rate to pick the LLM"
  printf '    would run: %s\n' "${PROBE[*]}"
  [ "$MODE" = system ] && printf '    would run (if the 0.5B is chosen): %s models fetch %s\n' "$VENV/bin/xiaoting" "$SMALL_LLM"
else
  say "measuring the decode rate to pick the LLM (a few seconds)"
  if PROBED="$("${PROBE[@]}" 2>&1)"; then
    printf '%s\n' "$PROBED" | sed 's/^/    /'
    CHOICE="$(printf '%s\n' "$PROBED" | sed -n 's/^llm: //p')"
    if [ "$MODE" = dev ] && [ "$CHOICE" != "$SMALL_LLM" ]; then
      say "--dev runs $SMALL_LLM (the ci profile it fetched); $CHOICE is the choice for a device install on this machine"
    fi
    if [ "$MODE" = system ] && [ "$CHOICE" = "$SMALL_LLM" ]; then
      if [ "$CONFIG_NEW" = 1 ]; then
        say "this machine decodes too slowly for the 1.5B: fetching $SMALL_LLM"
        run runuser -u xiaoting -- "$VENV/bin/xiaoting" models fetch "$SMALL_LLM" \
          --models-dir "$MODELS_DIR" --cache-dir "$MODEL_CACHE"
      else
        say "your config is kept; to use $CHOICE: sudo xiaoting models fetch $CHOICE && sudo xiaoting models probe --write-config /etc/xiaoting/config.toml"
      fi
    fi
  else
    printf '%s\n' "$PROBED" | sed 's/^/    /'
    say "the decode probe could not run (above): keeping the configured LLM"
  fi
fi

# ---------------------------------------------------------------- the page's password
# Made once, printed once; `sudo xiaoting web password` sets another.
if [ "$MODE" = system ]; then
  say "the household's page"
  run runuser -u xiaoting -- "$VENV/bin/xiaoting" --config /etc/xiaoting/config.toml \
    web password --generate --if-unset
fi

# ---------------------------------------------------------------- service
if [ "$MODE" = system ]; then
  say "installing the systemd service"
  run install -m 0644 "$HERE/systemd/xiaoting.service" /etc/systemd/system/xiaoting.service
  run sh "$HERE/systemd/groups.sh" /etc/systemd/system/xiaoting.service.d
  run systemctl daemon-reload
  run systemctl enable --now xiaoting.service
fi
if [ "$DRY" = 1 ]; then
  say "dry run: nothing was changed"
elif [ "$MODE" = system ]; then
  cat <<'EOF'

xiaoting is installed and running.
  follow the log:        journalctl -u xiaoting -f
  warnings only:         journalctl -u xiaoting -p warning
  the last turns:        xiaoting trace
  check the box:         xiaoting doctor
  the books:             xiaoting library list
  add an album:          sudo xiaoting library add ~/西游记
  the household's page:  http://<this box>:8080/ (its password is above; xiaoting doctor names it)
  settings:              /etc/xiaoting/config.toml, then: systemctl restart xiaoting
EOF
else
  cat <<EOF

Development setup ready in $HERE.
  run the demo:   .venv/bin/xiaoting demo
  run the tests:  .ci/run   (or: .venv/bin/pytest)
EOF
fi
