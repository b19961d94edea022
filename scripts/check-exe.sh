#!/usr/bin/env bash
# The linux-x64 single executable, run as on a machine without Node: an environment whose PATH
# is an empty directory (so no node, checked), a home of its own. --version, --help, the sandbox (detached), an
# envelope created, a listener that receives the envelope's signed webhooks and verifies
# them, a signed copy downloaded and verified. Built first if missing (npm run build:exe).
set -euo pipefail
cd "$(dirname "$0")/.."
exe="$PWD/dist/exe/sign-cli-linux-x64"
[ -x "$exe" ] || SIGN_EXE_TARGETS=linux-x64 node scripts/build/build-exe.mjs
work="$(mktemp -d)"
listener_pid=""
cleanup() {
  if [ -n "$listener_pid" ]; then kill "$listener_pid" 2>/dev/null || true; wait "$listener_pid" 2>/dev/null || true; fi
  "$exe" sandbox stop --data-dir "$work/sandbox" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# Nothing on this PATH, so no node (this machine has one in /usr/bin).
mkdir "$work/path"
run() { env -i PATH="$work/path" HOME="$work/home" TMPDIR="$work" NO_COLOR=1 "$@"; }
if run /bin/sh -c 'command -v node' >/dev/null; then echo "check-exe: node is on the executable's PATH; the check would prove nothing"; exit 1; fi
json_field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" "$2" | head -n 1; }

echo "$(basename "$exe") $(run "$exe" --version) ($(du -m "$exe" | cut -f1) MB), no node on PATH"
run "$exe" --help | grep -q '^Usage: sign-cli' || { echo "check-exe: --help printed no usage"; exit 1; }

run "$exe" sandbox --detach --port 0 --speed 50 --data-dir "$work/sandbox" --json > "$work/sandbox.json"
base_url="$(json_field base_url "$work/sandbox.json")"
export_env=(SIGN_BASE_URL="$base_url" SIGN_API_KEY="$(json_field api_key "$work/sandbox.json")" SIGN_WEBHOOK_SECRET="$(json_field webhook_secret "$work/sandbox.json")")
echo "sandbox detached at $base_url"

# env execs the executable, so $! is the listener itself (a function run with & would be a subshell).
env -i PATH="$work/path" HOME="$work/home" TMPDIR="$work" NO_COLOR=1 "${export_env[@]}" "$exe" webhooks listen --port 0 --json > "$work/events.ndjson" 2> "$work/listen.err" &
listener_pid=$!
for _ in $(seq 100); do grep -q 'http://127.0.0.1:[0-9]*' "$work/listen.err" 2>/dev/null && break; sleep 0.1; done
listen_url="$(grep -o 'http://127.0.0.1:[0-9]*' "$work/listen.err" | head -n 1)"
[ -n "$listen_url" ] || { echo "check-exe: the listener did not start:"; cat "$work/listen.err"; exit 1; }

run "$exe" envelopes sample | sed "s#http://127.0.0.1:4020/webhooks#$listen_url/webhooks#" > "$work/envelope.json"
id="$(run "${export_env[@]}" "$exe" envelopes create -f "$work/envelope.json" --query envelope.id)"
echo "created $id"
run "${export_env[@]}" "$exe" envelopes download "$id" --wait --wait-timeout 60 -o "$work/signed.pdf" --verify --trust "$work/sandbox/ca.pem" > /dev/null
echo "downloaded and verified the signed copy of $id ($(du -k "$work/signed.pdf" | cut -f1) kB)"
for _ in $(seq 100); do grep -q '"type":"envelope.completed"' "$work/events.ndjson" && break; sleep 0.1; done
grep -q "\"type\":\"envelope.completed\"" "$work/events.ndjson" || { echo "check-exe: no verified envelope.completed at the listener:"; cat "$work/events.ndjson" "$work/listen.err"; exit 1; }
echo "listener verified $(wc -l < "$work/events.ndjson") signed deliveries, envelope.completed among them"
# The OS keychain from inside the executable: a D-Bus session of its own with gnome-keyring on
# it (as test/helpers/secret-service.ts makes one), a key stored by `keys add`, read back by
# libsecret's secret-tool. .ci/run installs them; elsewhere this part is skipped with a note.
if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null && command -v secret-tool >/dev/null; then
  keyring="$work/keyring"
  mkdir -p "$keyring/run" && chmod 700 "$keyring/run"
  api_key="$(json_field api_key "$work/sandbox.json")"
  stored="$(env -i PATH=/usr/bin:/bin HOME="$keyring" XDG_DATA_HOME="$keyring/data" XDG_CONFIG_HOME="$keyring/config" XDG_CACHE_HOME="$keyring/cache" XDG_RUNTIME_DIR="$keyring/run" \
    EXE="$exe" EMPTY_PATH="$work/path" BASE_URL="$base_url" API_KEY="$api_key" dbus-run-session -- bash -c '
      set -euo pipefail
      printf throwaway | gnome-keyring-daemon --unlock --components=secrets >/dev/null
      for _ in $(seq 100); do
        dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true" && break
        sleep 0.1
      done
      printf "%s\n" "$API_KEY" | env PATH="$EMPTY_PATH" SIGN_BASE_URL="$BASE_URL" "$EXE" keys add exe --stdin >&2
      account="$(sed -n "s/.*\"account\": *\"\([^\"]*\)\".*/\1/p" "$XDG_CONFIG_HOME/sign-cli/config.json" | head -n 1)"
      [ -n "$account" ] || { echo "no keychain entry named in the config:" >&2; cat "$XDG_CONFIG_HOME/sign-cli/config.json" >&2; exit 1; }
      secret-tool lookup service sign-cli username "$account"')"
  [ "$stored" = "$api_key" ] || { echo "check-exe: the key in the OS keychain is not the key added"; exit 1; }
  if grep -q "$api_key" "$keyring/config/sign-cli/config.json"; then echo "check-exe: the config file holds the key"; exit 1; fi
  echo "keys add kept the key in the OS keychain (gnome-keyring, read back by secret-tool), not in the config file"
else
  [ -z "${CI:-}" ] || { echo "check-exe: dbus-run-session, gnome-keyring-daemon and secret-tool are needed in CI (.ci/run installs them)"; exit 1; }
  echo "note: the keychain part is skipped here (no dbus-run-session, gnome-keyring-daemon or secret-tool)"
fi
echo "single executable check passed"
