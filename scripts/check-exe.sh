#!/usr/bin/env bash
# The linux-x64 single executable, run as on a machine without Node: an environment whose PATH
# is an empty directory (so no node, checked), a home of its own. --version, --help, the sandbox (detached), an
# envelope created, a listener that receives the envelope's signed webhooks and verifies
# them, a signed copy downloaded and verified. Built first if missing (npm run build:exe).
set -euo pipefail
cd "$(dirname "$0")/.."
exe="$PWD/dist/exe/sign-cli-linux-x64"
[ -x "$exe" ] || SIGN_EXE_TARGETS=linux-x64 node scripts/build-exe.mjs
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
echo "single executable check passed"
