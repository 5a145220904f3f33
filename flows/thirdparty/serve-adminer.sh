#!/bin/sh
# Serve Debian's Adminer on loopback over a small SQLite database for the
# adminer_*.flow flows.
#   sh flows/thirdparty/serve-adminer.sh [PORT] [DIR]   (default 18733, /tmp/rpa-adminer; Ctrl-C stops it)
# Installs the packages on first use (as root), writes DIR/index.php (Adminer
# with a login that accepts SQLite's empty password: this instance listens on
# 127.0.0.1 only) and DIR/shop.db (table usage: 3 rows), and runs PHP's
# built-in server.
set -e
PORT=${1:-18733}
DIR=${2:-/tmp/rpa-adminer}
if [ ! -f /usr/share/adminer/adminer.php ] || ! php -m | grep -qi '^sqlite3$'; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# php-cli and php-cgi satisfy adminer's web-server dependency without Apache.
	apt-get install -y -q --no-install-recommends php-cli php-cgi php-sqlite3 adminer
fi
mkdir -p "$DIR"
cat >"$DIR/index.php" <<'PHP'
<?php
function adminer_object() {
	class RpaAdminer extends Adminer {
		function name() { return 'rpa test Adminer'; }
		// SQLite has no password; this instance listens on loopback only.
		function login($login, $password) { return true; }
	}
	return new RpaAdminer;
}
include '/usr/share/adminer/adminer.php';
PHP
rm -f "$DIR/shop.db"
php -r '
$db = new SQLite3($argv[1]);
$db->exec("CREATE TABLE usage (region TEXT PRIMARY KEY, name TEXT NOT NULL, kwh INTEGER NOT NULL)");
$db->exec("INSERT INTO usage VALUES (\"110000\", \"北京市\", 120), (\"330100\", \"杭州市\", 75), (\"440300\", \"深圳市\", 98)");
' "$DIR/shop.db"
echo "Adminer on http://127.0.0.1:$PORT/ (System: SQLite 3, Database: $DIR/shop.db, no password)"
exec php -S 127.0.0.1:"$PORT" -t "$DIR"
