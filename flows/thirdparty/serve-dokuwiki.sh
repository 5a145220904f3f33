#!/bin/sh
# Serve Debian's DokuWiki on loopback for the flows of this folder.
#   sh flows/thirdparty/serve-dokuwiki.sh [PORT]      (default 18732; Ctrl-C stops it)
# Installs the packages on first use (as root), adds the wiki user
# rpa / rpa-pass-42 (groups admin,user), and runs PHP's built-in server: no
# Apache, nothing listens beyond 127.0.0.1.
set -e
PORT=${1:-18732}
if [ ! -f /usr/share/dokuwiki/doku.php ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# php-cli and php-cgi first satisfy dokuwiki's `php` dependency, so apt
	# does not pull in Apache.
	apt-get install -y -q --no-install-recommends php-cli php-cgi php-xml php-mbstring dokuwiki
fi
USERS=/var/lib/dokuwiki/acl/users.auth.php
if ! grep -q '^rpa:' "$USERS"; then
	HASH=$(php -r 'echo password_hash("rpa-pass-42", PASSWORD_BCRYPT);')
	echo "rpa:$HASH:RPA Tester:rpa@localhost:admin,user" >>"$USERS"
fi
echo "DokuWiki on http://127.0.0.1:$PORT/doku.php (user rpa, password rpa-pass-42)"
exec php -S 127.0.0.1:"$PORT" -t /usr/share/dokuwiki
