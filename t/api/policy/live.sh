#!/bin/bash
# Live policy files: a second httpd, started from the running file's
# configuration with PlacementPolicyFile and PlacementPolicyDir in a
# scratch directory, answers by the rules as they are on disk: a changed
# file changes the next answers (after at most one second), a broken one
# keeps the last good rules and is logged with its file and line, a file
# added to the directory takes effect and later files win.
#
# One child: each child looks at the files when it serves a request, so a
# child that served none while the good file was there keeps the rules
# from before it, and a broken file then leaves it at those; with two, the
# broken-file step depended on which child the requests of the step
# before went to.
set -u
. "$(dirname "$0")/../../../scripts/lib-db.sh"
dir=$(mktemp -d "$PL_TEST_DIR/live.XXXXXX")
port=$(pl_free_port)
mkdir "$dir/policy.d"
policy=$dir/policy.yaml
write() { printf '%s\n' "$2" >"$1.tmp" && mv "$1.tmp" "$1"; }
write "$policy" '"placement:resource_providers:list": "role:admin"'
sed -e "s|^Listen .*|Listen 127.0.0.1:$port|" \
    -e "s|^PidFile .*|PidFile \"$dir/httpd.pid\"|" \
    -e "s|^ErrorLog .*|ErrorLog \"$dir/error.log\"|" \
    -e "s|^LogLevel .*|LogLevel notice|" \
    -e "s|^DefaultRuntimeDir .*|DefaultRuntimeDir \"$dir\"|" \
    -e "s|^CustomLog .*||" \
    -e "s|^StartServers .*|StartServers 1|" \
    -e "s|^ServerLimit .*|ServerLimit 1|" \
    -e "s|^MaxRequestWorkers .*|MaxRequestWorkers 16|" \
    -e "s|^MaxSpareThreads .*|MaxSpareThreads 16|" \
    -e "s|^\( *\)PlacementAuthStrategy noauth2|&\n\1PlacementPolicyFile \"$policy\"\n\1PlacementPolicyDir \"$dir/policy.d\"|" \
    "$PL_TEST_DIR/httpd.conf" >"$dir/httpd.conf"
prefix=$(sed -n 's/^<Location "\(.*\)">.*/\1/p' "$dir/httpd.conf" | head -1)
chmod -R a+rwX "$dir"
"${APACHE2:-apache2}" -f "$dir/httpd.conf" -DFOREGROUND >"$dir/out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
url=http://127.0.0.1:$port$prefix/resource_providers
for _ in $(seq 50); do
  curl -s -o /dev/null "$url" && break
  sleep 0.1
done

# status of GET /resource_providers for a member (as $1: member or admin),
# asked a few times
ask() {
  local h=(-H 'x-auth-token: user' -H 'x-roles: member')
  [ "$1" = admin ] && h=(-H 'x-auth-token: admin')
  local codes=""
  for _ in 1 2 3 4; do
    codes+=$(curl -s -o /dev/null -w '%{http_code} ' "${h[@]}" "$url")
  done
  echo "${codes% }"
}
check() { # name expected got
  if [ "$2" = "$3" ]; then echo "ok $1"; else echo "not ok $1 (wanted $2, got $3)"; fi
}
settle() { sleep 1.2; }   # the next second: each child looks again

check "the file at startup: a member is refused" "403 403 403 403" "$(ask member)"
check "the file at startup: admin lists" "200 200 200 200" "$(ask admin)"

write "$policy" '"placement:resource_providers:list": "role:member or role:admin"'
settle
check "a changed file: the member lists, no restart" "200 200 200 200" "$(ask member)"

write "$policy" '# broken on line 3
"placement:resource_providers:list": "role:admin"
"placement:traits:list": yes'
settle
check "a broken file: the last good rules stay" "200 200 200 200" "$(ask member)"
if grep -qE "PL01510.*$policy:3" "$dir/error.log"; then
  echo "ok the broken file is logged with its file and line"
else
  echo "not ok the broken file is logged with its file and line"
  grep PL0151 "$dir/error.log" | tail -2 | sed 's/^/# /'
fi
if [ "$(grep -c PL01510 "$dir/error.log")" -le 2 ]; then
  echo "ok the broken file is logged once per child, not per request"
else
  echo "not ok the broken file is logged once per child, not per request"
fi

write "$policy" '"placement:resource_providers:list": "role:member or role:admin"'
write "$dir/policy.d/20-deny.yaml" '"placement:resource_providers:list": "role:nobody"'
settle
check "a directory file added: it overrides the file" "403 403 403 403" "$(ask member)"
check "... for admin too" "403 403 403 403" "$(ask admin)"

write "$dir/policy.d/10-allow.yaml" '"placement:resource_providers:list": "role:member"'
write "$dir/policy.d/notes.txt" '"placement:resource_providers:list": "@"'
settle
check "an earlier directory file loses to a later one; not *.yaml is not read" \
  "403 403 403 403" "$(ask member)"

rm "$dir/policy.d/20-deny.yaml"
settle
check "a directory file removed: the next one rules" "200 200 200 200" "$(ask member)"
check "... and admin, which it does not name, is refused" "403 403 403 403" "$(ask admin)"

if grep -qE '\[(crit|alert|emerg)\]|exit signal' "$dir/error.log"; then
  echo "not ok the live httpd's log is clean"
  grep -E '\[(crit|alert|emerg)\]|exit signal' "$dir/error.log" | head -3 | sed 's/^/# /'
else
  echo "ok the live httpd's log is clean"
fi
