#!/usr/bin/env bash
# What a user installs: `npm pack`, then `npm install -g` of the tarball into an empty prefix,
# offline from an empty npm cache: the package carries everything it runs (its bundles, the
# signed copy's fonts, the sandbox pages' fonts and stylesheet, the webhook inspector's files); only the keychain binding is an
# optional dependency, skipped offline.
# The installed command must answer --version and --help, have its man pages, run the sandbox, create an
# envelope against it and download a completed envelope's signed copy (pdfkit, fontkit and the
# DejaVu fonts load from the installed package's node_modules), and a project that installs
# the tarball must import the library and its shared budget by name.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="$(mktemp -d)"
sandbox_pid=""
listener_pid=""
cleanup() {
  [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null || true
  [ -n "$listener_pid" ] && kill "$listener_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) kB)"
# No registry: --offline with a cache that has nothing in it.
npm install -g --prefix "$work/prefix" --offline --cache "$work/empty-cache" --no-audit --no-fund --loglevel=error "$tarball" >/dev/null
bin="$work/prefix/bin/sign-cli"
installed="$work/prefix/lib/node_modules/$(node -p 'require("./package.json").name')"
[ ! -d "$installed/node_modules" ] || { echo "the offline install fetched dependencies:"; ls "$installed/node_modules"; exit 1; }
echo "installed offline from an empty cache: $(du -sk "$installed" | cut -f1) kB, no dependency fetched"

"$bin" --version
"$bin" --help > /dev/null

# The man pages, installed by npm from package.json "man" into the prefix's share/man.
page="$(MANPATH="$work/prefix/share/man" man -w sign-cli-envelopes-create)"
manual="$(MANPATH="$work/prefix/share/man" MANWIDTH=80 MANPAGER=cat man sign-cli-envelopes-create 2>/dev/null || true)"
[[ "$manual" == *Idempotency-Key* ]] || { echo "man sign-cli-envelopes-create: not readable after a global install ($page)"; exit 1; }
echo "man sign-cli-envelopes-create: $page"

# Speed 20: a journey completes in well under a second.
"$bin" sandbox --port 0 --json --speed 20 --data-dir "$work/sandbox" > "$work/sandbox.out" 2> "$work/sandbox.err" &
sandbox_pid=$!
for _ in $(seq 100); do [ -s "$work/sandbox.out" ] && break; sleep 0.1; done
first_line() { node -e 'const [line] = require("fs").readFileSync(process.argv[1], "utf8").split("\n"); console.log(JSON.parse(line)[process.argv[2]])' "$work/sandbox.out" "$1"; }
export SIGN_BASE_URL="$(first_line base_url)" SIGN_API_KEY="$(first_line api_key)" SIGN_STATE_DIR="$work/state" SIGN_CONFIG_DIR="$work/config"
# The pages' stylesheet is a file the package ships (dist/pages), not part of the bundle.
node -e '
  fetch(`${process.env.SIGN_BASE_URL}/_sandbox/assets/ceremony.css`).then(async (response) => {
    const css = await response.text();
    if (response.status !== 200 || !css.includes("@font-face")) process.exit(1);
    console.log(`installed sandbox serves its stylesheet: ${css.length} bytes`);
  });
'
# The webhook inspector's files are files the package ships (dist/inspector): its page and script
# are served, and (where Node has node:sqlite) its SQLite writer runs from them: a delivery sent
# (unsigned, so refused, and kept all the same) is listed by the API and, on such a Node, is in the file.
SIGN_WEBHOOK_SECRET="$(first_line webhook_secret)" "$bin" webhooks listen --port 0 --inspect 0 > /dev/null 2> "$work/listener.err" &
listener_pid=$!
for _ in $(seq 100); do grep -q 'inspect deliveries at' "$work/listener.err" 2>/dev/null && break; sleep 0.1; done
node -e '
  const log = require("fs").readFileSync(process.argv[1], "utf8");
  const at = /inspect deliveries at (http:\/\/\S+)/.exec(log);
  const listening = /listening on (http:\/\/\S+)/.exec(log);
  if (!at || !listening) { console.error("the installed listener did not start its inspector"); process.exit(1); }
  (async () => {
    const answers = await Promise.all(["", "assets/inspector.js", "assets/inspector.css"].map((path) => fetch(at[1] + path)));
    if (answers.some((answer) => answer.status !== 200)) process.exit(1);
    const sent = await fetch(`${listening[1]}/hooks`, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"id\":\"evt_package\"}" });
    const { deliveries } = await (await fetch(`${at[1]}api/deliveries`)).json();
    if (sent.status !== 401 || deliveries.length !== 1) { console.error(`the installed inspector did not keep a delivery: ${sent.status}, ${deliveries.length}`); process.exit(1); }
    console.log(`installed listener serves its inspector (${(await answers[1].text()).length} bytes of script) and keeps deliveries`);
  })();
' "$work/listener.err"
kill -INT "$listener_pid"; wait "$listener_pid"; listener_pid=""
if node --no-warnings -e 'try { process.exit(process.getBuiltinModule?.("node:sqlite") ? 0 : 1) } catch { process.exit(1) }'; then
  [ -s "$SIGN_STATE_DIR/inspector/deliveries.sqlite" ] || { echo "the installed inspector wrote no SQLite file"; exit 1; }
  echo "installed inspector kept its delivery in $SIGN_STATE_DIR/inspector/deliveries.sqlite (node:sqlite, $(node --version))"
fi
"$bin" envelopes create -f "$root/examples/envelope.json" --json > "$work/created.json"
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); if (r.status !== "created" || !r.envelope.id) process.exit(1); console.log(`installed CLI created ${r.envelope.id}`)' "$work/created.json"
arabic_id="$("$bin" envelopes create -f "$root/examples/envelope-ar.json" --json | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).envelope.id)')"
"$bin" envelopes download "$arabic_id" -o "$work/signed.pdf" --wait --wait-timeout 60
node -e '
  const pdf = require("fs").readFileSync(process.argv[1]);
  const text = pdf.toString("latin1");
  const ok = text.startsWith("%PDF-") && text.trimEnd().endsWith("%%EOF") && text.includes("+DejaVuSans") && !text.includes("Helvetica");
  if (!ok) { console.error("the signed copy is not a PDF with the DejaVu fonts embedded"); process.exit(1); }
  console.log(`installed CLI downloaded the signed copy of ${process.argv[2]}: ${pdf.length} bytes, DejaVu Sans embedded`);
' "$work/signed.pdf" "$arabic_id"
# The signed copy proves itself in the installed CLI: its PAdES signature, the sandbox CA, the trail.
"$bin" envelopes verify "$work/signed.pdf" --trust "$(first_line ca_file)" --envelope "$arabic_id" > /dev/null
echo "installed CLI verified the signed copy of $arabic_id (PAdES, sandbox CA, audit trail)"

# With the registry reachable, the keychain binding (a native addon outside the bundle, an
# optional dependency) is installed too and loads from the installed package.
npm install -g --prefix "$work/online" --no-audit --no-fund --loglevel=error "$tarball" >/dev/null
node -e '
  const { Entry } = require(require.resolve("@napi-rs/keyring", { paths: [process.argv[1]] }));
  if (typeof Entry !== "function") process.exit(1);
  console.log("installed online, the CLI loads its keychain binding (@napi-rs/keyring)");
' "$work/online/lib/node_modules/$(node -p 'require("./package.json").name')"

mkdir "$work/app"
cd "$work/app"
npm init -y > /dev/null
npm install --offline --cache "$work/empty-cache-app" --no-audit --no-fund --loglevel=error "$tarball" > /dev/null
node --input-type=module -e '
  import { SignClient, validateEnvelope, VERSION } from "esign-envelopes-cli";
  const client = new SignClient({ baseUrl: process.env.SIGN_BASE_URL, apiKey: process.env.SIGN_API_KEY });
  const keys = await client.listApiKeys();
  await client.close();
  const { errors } = validateEnvelope({ title: "x" });
  if (errors.length === 0 || keys.length === 0) process.exit(1);
  console.log(`library ${VERSION} imported by name: ${keys.length} key(s) listed, validation works`);
'
node --input-type=module -e '
  import { openRedisBudget } from "esign-envelopes-cli/shared-budget";
  if (typeof openRedisBudget !== "function") process.exit(1);
  console.log("esign-envelopes-cli/shared-budget imported by name");
'
echo "package check passed"
