# t/schema/httpd-conf.sh: `--config FILE` reads httpd's configuration as
# httpd does (tools/manage/pm_httpd_conf.c). Sourced by t/schema/run
# (uses its ok, $M and $WORK); SQLite databases only: what is tested is the
# reading of the files, not the database.
#
# A Debian-like tree: apache2.conf with IncludeOptional mods-enabled/*.load,
# Include ports.conf, IncludeOptional conf-enabled/*.conf (empty: an
# IncludeOptional of nothing) and sites-enabled/*.conf, whose placement vhost
# holds the DBD lines (quoted, continued on a second line, a blank in the
# path). Then a loop, a missing Include, a wildcard Include of nothing, no
# DBD lines, two vhosts with two databases (refused, --vhost picks), last
# line wins in strcmp order of the matches, ServerRoot. Every error: exit
# 1, one line that names the cause, and no database file made.

hc_case() {  # hc_case ARGS...: the tool, from another directory
  (cd / && "$M" "$@") >"$WORK/hc.out" 2>"$WORK/hc.err"
  RC=$?
  OUT=$(cat "$WORK/hc.out") ERR=$(cat "$WORK/hc.err")
}
# refused FILE WORD: exit 1, one line on stderr holding WORD, no database
refused() {
  [ "$RC" = 1 ] && [ "$(wc -l <"$WORK/hc.err")" = 1 ] &&
    grep -q -- "$2" "$WORK/hc.err" && ! ls "$HC"/db* >/dev/null 2>&1
}

HC="$WORK/httpd conf" # a blank in every path
E="$HC/etc/apache2"
mkdir -p "$E/mods-enabled" "$E/conf-enabled" "$E/sites-enabled"
cat >"$E/apache2.conf" <<'EOF'
# as Debian's: no ServerRoot line (the file's directory is the root)
#ServerRoot "/etc/apache2"
#DBDriver pgsql
DefaultRuntimeDir ${APACHE_RUN_DIR}
IncludeOptional mods-enabled/*.load
IncludeOptional mods-enabled/*.conf
Include ports.conf
<Directory />
	Options FollowSymLinks
	AllowOverride None
</Directory>
IncludeOptional conf-enabled/*.conf
IncludeOptional sites-enabled/*.conf
EOF
echo "Listen 8778" >"$E/ports.conf"
echo "LoadModule dbd_module /usr/lib/apache2/modules/mod_dbd.so" >"$E/mods-enabled/dbd.load"
echo "LoadModule placement_module /usr/lib/apache2/modules/mod_placement.so" >"$E/mods-enabled/placement.load"
cat >"$E/sites-enabled/000-default.conf" <<'EOF'
<VirtualHost *:80>
	DocumentRoot /var/www/html
</VirtualHost>
EOF
cat >"$E/sites-enabled/placement-api.conf" <<EOF
<VirtualHost *:8778>
    ServerName placement.example
    DBDriver sqlite3
    DBDParams \\
        "$HC/db-placement.sqlite"
    <Location />
        SetHandler placement
    </Location>
</VirtualHost>
EOF

hc_case --config "$E/apache2.conf" db version
[ "$RC" = 0 ] && [ "$OUT" = None ]
ok "httpd conf: db version reaches the DBD lines of sites-enabled/*.conf (Debian's tree)" $? "rc=$RC $OUT $ERR"
hc_case --config "$E/apache2.conf" db sync
v=$(sqlite3 "$HC/db-placement.sqlite" "SELECT version_num FROM alembic_version" 2>&1)
[ "$RC" = 0 ] && [ "$v" = a082b8bb98d0 ]
ok "httpd conf: db sync makes that database (continued, quoted DBDParams)" $? "rc=$RC $v $ERR"
hc_case --config "$E/apache2.conf" db version
[ "$RC" = 0 ] && [ "$OUT" = a082b8bb98d0 ]
ok "httpd conf: db version then says a082b8bb98d0" $? "rc=$RC $OUT $ERR"
hc_case --config "$E/apache2.conf" upgrade check
[ "$RC" = 0 ]
ok "httpd conf: upgrade check on it" $? "rc=$RC $OUT $ERR"
# the server's PlacementStandardTraitsFile (relative: to ServerRoot) is
# what db sync_standard_data adds, as the module would
printf 'HW_NEXT_RELEASE_FEATURE\n' >"$E/next-traits.txt"
sed -i 's|^    ServerName placement.example$|&\n    PlacementStandardTraitsFile next-traits.txt|' "$E/sites-enabled/placement-api.conf"
hc_case --config "$E/apache2.conf" db sync_standard_data
[ "$RC" = 0 ] && grep -qx "added trait HW_NEXT_RELEASE_FEATURE" <<<"$OUT" &&
  grep -q "and 1 of $E/next-traits.txt)\$" <<<"$OUT"
ok "httpd conf: db sync_standard_data takes the server's PlacementStandardTraitsFile" $? "rc=$RC $(tail -1 <<<"$OUT") $ERR"
sed -i '/PlacementStandardTraitsFile/d' "$E/sites-enabled/placement-api.conf"
mv "$HC/db-placement.sqlite" "$HC/synced.sqlite"

# the errors: each leaves no database behind
printf 'Include conf-enabled/b.conf\n' >"$E/conf-enabled/a.conf"
printf '# the loop\nInclude conf-enabled/a.conf\n' >"$E/conf-enabled/b.conf"
hc_case --config "$E/apache2.conf" db sync
refused "$E" "conf-enabled/b.conf:2: Include loop"
ok "httpd conf: an Include loop is refused (exit 1, one line, nothing made)" $? "rc=$RC $ERR"
rm -f "$E/conf-enabled/"*

printf 'Include conf-enabled/missing.conf\n' >"$E/conf-enabled/x.conf"
hc_case --config "$E/apache2.conf" db sync
refused "$E" "x.conf:1: included file .*missing.conf does not exist"
ok "httpd conf: Include of a missing file is refused" $? "rc=$RC $ERR"

printf 'Include conf-enabled/nothing-*.conf\n' >"$E/conf-enabled/x.conf"
hc_case --config "$E/apache2.conf" db sync
refused "$E" "x.conf:1: Include conf-enabled/nothing-\*.conf matches no file"
ok "httpd conf: Include of a wildcard that matches nothing is refused" $? "rc=$RC $ERR"

printf 'IncludeOptional conf-enabled/nothing-*.conf\nIncludeOptional missing.conf\nIncludeOptional nodir/*/x.conf\n' >"$E/conf-enabled/x.conf"
hc_case --config "$E/apache2.conf" db version
[ "$RC" = 0 ] && [ "$OUT" = None ]
ok "httpd conf: IncludeOptional of nothing, of a missing file and of a missing directory is not an error" $? "rc=$RC $OUT $ERR"
rm -f "$E/conf-enabled/"* "$HC"/db*

mv "$E/sites-enabled/placement-api.conf" "$HC/placement-api.conf.off"
hc_case --config "$E/apache2.conf" db sync
refused "$E" "apache2.conf (and the files it includes) has no DBDriver and DBDParams lines"
ok "httpd conf: no DBD lines anywhere is refused" $? "rc=$RC $ERR"
mv "$HC/placement-api.conf.off" "$E/sites-enabled/placement-api.conf"

# two vhosts that serve the module, two databases
cat >"$E/sites-enabled/placement-b.conf" <<EOF
<VirtualHost 127.0.0.1:8780>
    ServerName b.example
    DBDriver sqlite3
    DBDParams "$HC/db-b.sqlite"
    <Location /placement>
        SetHandler placement
    </Location>
</VirtualHost>
EOF
hc_case --config "$E/apache2.conf" db sync
refused "$E" "names 2 databases: placement.example (sqlite3, .*placement-api.conf:4), b.example (sqlite3, .*placement-b.conf:4); choose one with --vhost NAME"
ok "httpd conf: two vhosts with two databases are refused, both named" $? "rc=$RC $ERR"
hc_case --config "$E/apache2.conf" --vhost b.example db sync
[ "$RC" = 0 ] && [ -f "$HC/db-b.sqlite" ] && [ ! -e "$HC/db-placement.sqlite" ]
ok "httpd conf: --vhost b.example picks its database" $? "rc=$RC $ERR"
hc_case --config "$E/apache2.conf" --vhost '*:8778' db version
[ "$RC" = 0 ] && [ "$OUT" = None ]
ok "httpd conf: --vhost takes the <VirtualHost> address too" $? "rc=$RC $OUT $ERR"
rm -f "$HC"/db*
hc_case --config "$E/apache2.conf" --vhost nowhere.example db sync
refused "$E" "has no virtual host nowhere.example"
ok "httpd conf: --vhost of an unknown name is refused" $? "rc=$RC $ERR"
hc_case --vhost b.example db sync
[ "$RC" = 2 ]
ok "httpd conf: --vhost without --config is an argument error (2)" $? "rc=$RC $ERR"
rm -f "$E/sites-enabled/"*

# the main server's DBD lines in two files: the last read wins, and
# "10-..." is read before "9-..." (strcmp order, as httpd sorts)
printf 'DBDriver sqlite3\nDBDParams "%s/db-10"\n' "$HC" >"$E/sites-enabled/10-a.conf"
printf 'DBDParams "%s/db-9"\n<Location /placement>\n SetHandler placement\n</Location>\n' "$HC" >"$E/sites-enabled/9-b.conf"
hc_case --config "$E/apache2.conf" db sync
[ "$RC" = 0 ] && [ -f "$HC/db-9" ] && [ ! -e "$HC/db-10" ]
ok "httpd conf: wildcard matches read in strcmp order, the last line wins" $? "rc=$RC $ERR $(ls "$HC")"
rm -f "$E/sites-enabled/"* "$HC"/db*

# ServerRoot moves the base of relative paths; an included directory is
# read whole
mkdir -p "$HC/root/conf.d/sub"
printf 'ServerRoot "%s/root"\nInclude conf.d\n' "$HC" >"$E/conf-enabled/root.conf"
printf 'DBDriver sqlite3\n' >"$HC/root/conf.d/1.conf"
printf 'DBDParams "%s/db-root"\n' "$HC" >"$HC/root/conf.d/sub/2.conf"
hc_case --config "$E/apache2.conf" db sync
[ "$RC" = 0 ] && [ -f "$HC/db-root" ]
ok "httpd conf: ServerRoot, and Include of a directory (read recursively)" $? "rc=$RC $ERR"
rm -rf "$HC"
