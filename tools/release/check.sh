#!/usr/bin/env bash
# Checks the artifacts of `go run ./tools/release --out DIR`:
#
#   bash tools/release/check.sh [DIR]        (default dist/)
#
# - every artifact is there, matches SHA256SUMS and is under 22 MB (a guard against
#   an accidental heavy dependency: this round's embedded NATS server and the
#   XLSX writer took the .deb to about 18 MB);
# - the .debs (dpkg-deb --info/--contents) and .rpms (rpm -qpil) hold the
#   expected files, the browser dependency, and no maintainer scripts;
# - the tar.gz and zip hold the binary for their platform;
# - the arm64 binary runs `rpa version` under qemu-aarch64-static;
# - the x86_64 rpm installs into a throwaway root (rpm -i --root --nodeps)
#   with its files in place, and erases cleanly;
# - the amd64 .deb installs with apt-get (pulling the browser dependency),
#   then /usr/bin/rpa doctor passes and /usr/bin/rpa demo runs; apt-get
#   remove leaves none of its files.
#
# Installs rpm and qemu-user-static when missing. The apt steps need root
# (or sudo); RPA_CHECK_NOINSTALL=1 skips them (and the tools' install).
set -euo pipefail

dist=${1:-dist}
# what README.md links to, which every artifact ships at its repository
# path: the docs/ pages and the example flows
repo=$(cd "$(dirname "$0")/../.." && pwd)
docs_files=$(cd "$repo" && { find docs -type f ! -name '.*'; find flows -maxdepth 1 -type f \( -name '*.flow' -o -name '*.yaml' \); } | sort)
docs_dirs=$(cd "$repo" && { find docs -mindepth 1 -type d; echo flows; } | sed 's|^|/usr/share/doc/rpa/|' | sort)
cd "$dist"
dist=$(pwd)
fail() { printf 'check.sh: FAILED: %s\n' "$*" >&2; exit 1; }
say() { printf '  %s\n' "$*"; }
step() { printf -- '-- %s\n' "$*"; }
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    fail "need root to run: $*"; fi
}
noinstall=${RPA_CHECK_NOINSTALL:-}
apt_updated=
need() { # need COMMAND PACKAGE
  command -v "$1" >/dev/null && return 0
  [ -n "$noinstall" ] && fail "$1 is missing (apt-get install $2)"
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$2" >/dev/null
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one FILE matching a glob, or fail
one() {
  local m=( $1 )
  [ "${#m[@]}" = 1 ] && [ -e "${m[0]}" ] || fail "want exactly one $1 in $dist, have: ${m[*]}"
  echo "${m[0]}"
}
# ELF machine of a file: 3e00 = x86-64, b700 = aarch64
elf_machine() { od -An -tx1 -j18 -N2 "$1" | tr -d ' \n'; }

step "artifacts, checksums, sizes"
deb_amd64=$(one 'rpa_*_amd64.deb'); deb_arm64=$(one 'rpa_*_arm64.deb')
rpm_amd64=$(one 'rpa-*.x86_64.rpm'); rpm_arm64=$(one 'rpa-*.aarch64.rpm')
tgz_amd64=$(one 'rpa_*_linux_amd64.tar.gz'); tgz_arm64=$(one 'rpa_*_linux_arm64.tar.gz')
zip_win=$(one 'rpa_*_windows_amd64.zip')
sha256sum --quiet -c SHA256SUMS || fail "SHA256SUMS does not match"
[ "$(wc -l < SHA256SUMS)" = 7 ] || fail "SHA256SUMS should list 7 artifacts"
for f in $deb_amd64 $deb_arm64 $rpm_amd64 $rpm_arm64 $tgz_amd64 $tgz_arm64 $zip_win; do
  size=$(stat -c %s "$f")
  say "$(printf '%-55s %6.2f MB' "$f" "$(awk -v s="$size" 'BEGIN{print s/1e6}')")"
  [ "$size" -lt 22000000 ] || fail "$f is $size bytes, over 22 MB"
done

files_in_pkg=$(sort <<EOF
/usr/bin/rpa
/usr/lib/systemd/user/rpa-connect.service
/usr/lib/systemd/user/rpa-schedule.service
/usr/share/doc/rpa/LICENSE
/usr/share/doc/rpa/README.md
/usr/share/doc/rpa/THIRD_PARTY_LICENSES
/usr/share/doc/rpa/connect.env.example
/usr/share/doc/rpa/copyright
/usr/share/man/man1/rpa.1.gz
$(sed 's|^|/usr/share/doc/rpa/|' <<< "$docs_files")
EOF
)
# the folders the rpm owns (so rpm -e removes them)
rpm_dirs=$(printf '/usr/share/doc/rpa/docs\n/usr/share/doc/rpa\n%s\n' "$docs_dirs" | grep -v '^$' | sort)

step "deb: dpkg-deb --info/--contents"
for deb in $deb_amd64 $deb_arm64; do
  arch=$(dpkg-deb -f "$deb" Architecture)
  [ "$(dpkg-deb -f "$deb" Package)" = rpa ] || fail "$deb: Package is not rpa"
  case "$deb" in *_"$arch".deb) ;; *) fail "$deb: Architecture $arch";; esac
  depends=$(dpkg-deb -f "$deb" Depends)
  case "$depends" in *"chromium | chromium-browser"*) ;; *) fail "$deb: Depends is '$depends'";; esac
  members=$(dpkg-deb --ctrl-tarfile "$deb" | tar -t | sed 's|^\./||' | grep -v '^$' | sort | tr '\n' ' ')
  [ "$members" = "control md5sums " ] || fail "$deb: control members are '$members' (no maintainer scripts wanted)"
  got=$(dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ {print $NF}' | sed 's|^\./|/|' | sort)
  [ "$got" = "$files_in_pkg" ] || fail "$deb: files are
$got
want
$files_in_pkg"
  mode=$(dpkg-deb --contents "$deb" | awk '$NF == "./usr/bin/rpa" {print $1}')
  [ "$mode" = "-rwxr-xr-x" ] || fail "$deb: /usr/bin/rpa mode $mode"
  mkdir -p "$tmp/$arch" && dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/rpa > "$tmp/$arch/rpa"
  want=3e00; [ "$arch" = arm64 ] && want=b700
  [ "$(elf_machine "$tmp/$arch/rpa")" = "$want" ] || fail "$deb: /usr/bin/rpa is not an $arch ELF binary"
  say "$deb: $arch, Depends: $depends, $(echo "$got" | wc -l) files, no scripts"
done

step "rpm: rpm -qpil"
need rpm rpm
for r in $rpm_amd64 $rpm_arm64; do
  [ "$(rpm -qp --qf '%{NAME}' "$r" 2>/dev/null)" = rpa ] || fail "$r: name is not rpa"
  [ "$(rpm -qp --qf '%{LICENSE} %{URL}' "$r" 2>/dev/null)" = "Apache-2.0 https://github.com/rpa-dev/rpa" ] || fail "$r: licence and URL are '$(rpm -qp --qf '%{LICENSE} %{URL}' "$r" 2>/dev/null)'"
  rpm -qpil "$r" > "$tmp/qpil" 2>/dev/null || fail "rpm -qpil $r"
  got=$(grep '^/' "$tmp/qpil" | sort)
  # the package owns its doc folder (so rpm -e removes it)
  while read -r d; do
    echo "$got" | grep -qx "$d" || fail "$r does not own $d"
  done <<< "$rpm_dirs"
  got_files=$(echo "$got" | grep -vxF "$rpm_dirs" || true)
  [ "$got_files" = "$files_in_pkg" ] || fail "$r: files are
$got
want
$files_in_pkg"
  rec=$(rpm -qp --recommends "$r" 2>/dev/null)
  [ "$rec" = chromium ] || fail "$r: Recommends is '$rec', want chromium"
  scripts=$(rpm -qp --scripts "$r" 2>/dev/null)
  [ -z "$scripts" ] || fail "$r: has scripts: $scripts"
  if rpm -qpR "$r" 2>/dev/null | grep -qE '^(/bin/sh|chromium|dpkg|debconf)'; then
    fail "$r: hard requirements: $(rpm -qpR "$r" 2>/dev/null | tr '\n' ' ')"
  fi
  say "$r: $(rpm -qp --qf '%{VERSION}-%{RELEASE} %{ARCH}' "$r" 2>/dev/null), Recommends: $rec, $(echo "$got_files" | wc -l) files, no scripts"
done

step "tar.gz and zip"
for t in $tgz_amd64 $tgz_arm64; do
  list=$(tar -tzf "$t" | sed 's|^[^/]*/||' | grep -v '^$' | sort | tr '\n' ' ')
  want=$(printf '%s\n' COPYRIGHT LICENSE README.md THIRD_PARTY_LICENSES connect.env.example rpa rpa-connect.service rpa-schedule.service rpa.1 $docs_files | sort | tr '\n' ' ')
  [ "$list" = "$want" ] || fail "$t holds: $list; want $want"
  say "$t: $list"
done
mkdir -p "$tmp/tgz-arm64" && tar -xzf "$tgz_arm64" -C "$tmp/tgz-arm64" --strip-components=1
[ "$(elf_machine "$tmp/tgz-arm64/rpa")" = b700 ] || fail "$tgz_arm64: rpa is not an arm64 binary"
list=$(unzip -Z1 "$zip_win" | sed 's|^[^/]*/||' | sort | tr '\n' ' ')
want=$(printf '%s\n' COPYRIGHT.txt LICENSE.txt README.md THIRD_PARTY_LICENSES.txt rpa.exe $docs_files | sort | tr '\n' ' ')
[ "$list" = "$want" ] || fail "$zip_win holds: $list; want $want"
unzip -q -d "$tmp/win" "$zip_win"
[ "$(head -c2 "$tmp"/win/*/rpa.exe)" = MZ ] || fail "$zip_win: rpa.exe is not a Windows executable"
say "$zip_win: $list"

step "man page"
if command -v groff >/dev/null; then
  warn=$(zcat < <(dpkg-deb --fsys-tarfile "$deb_amd64" | tar -xO ./usr/share/man/man1/rpa.1.gz) | groff -man -Tutf8 -ww -z 2>&1 || true)
  [ -z "$warn" ] || fail "rpa.1: groff warnings: $warn"
  say "rpa.1 renders without warnings"
fi

step "arm64 binary under qemu-aarch64-static"
need qemu-aarch64-static qemu-user-static
out=$(qemu-aarch64-static "$tmp/tgz-arm64/rpa" version) || fail "qemu-aarch64-static rpa version"
case "$out" in *linux/arm64*) ;; *) fail "arm64 rpa version said: $out";; esac
say "$out"

step "rpm -i --root (throwaway root)"
root="$tmp/rpmroot"
mkdir -p "$root"
rpm --root "$root" --initdb
# (Debian's rpm prints a note that rpm is not its package manager: dropped)
rpm -i --root "$root" --nodeps "$rpm_amd64" 2>&1 | grep -vE '^(warning|rpm): ' || true
rpm --root "$root" -q rpa >/dev/null || fail "rpa is not installed in $root"
while read -r f; do
  [ -e "$root$f" ] || fail "rpm --root: $f is missing"
done <<< "$files_in_pkg"
[ -x "$root/usr/bin/rpa" ] || fail "rpm --root: /usr/bin/rpa is not executable"
say "$("$root/usr/bin/rpa" version)"
rpm -e --root "$root" --nodeps rpa 2>&1 | grep -vE '^(warning|rpm): ' || true
while read -r f; do
  [ ! -e "$root$f" ] || fail "rpm -e: $f is left"
done <<< "$files_in_pkg
$rpm_dirs"
say "installed $(echo "$files_in_pkg" | wc -l) files into $root, erased cleanly"

if [ -n "$noinstall" ]; then
  echo "check.sh: artifacts ok (apt install skipped: RPA_CHECK_NOINSTALL)"
  exit 0
fi

step "apt-get install ./$deb_amd64"
if dpkg-query -W -f='${Status}' rpa 2>/dev/null | grep -q 'install ok installed'; then
  fail "a package rpa is already installed here; remove it first (apt-get remove rpa)"
fi
for f in $files_in_pkg; do [ ! -e "$f" ] || fail "$f exists before the install"; done
if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$dist/$deb_amd64" >/dev/null || fail "apt-get install ./$deb_amd64"
removed=
cleanup_pkg() { [ -n "$removed" ] || DEBIAN_FRONTEND=noninteractive as_root apt-get remove -y -qq rpa >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup_pkg EXIT
for f in $files_in_pkg; do [ -e "$f" ] || fail "apt-get install: $f is missing"; done
say "$(/usr/bin/rpa version)"
if command -v systemd-analyze >/dev/null; then
  # (the man: link is only checked where man is installed)
  for unit in rpa-connect.service rpa-schedule.service; do
    bad=$(systemd-analyze verify /usr/lib/systemd/user/$unit 2>&1 | grep -v "Command 'man " || true)
    [ -z "$bad" ] || fail "systemd-analyze verify $unit: $bad"
    say "systemd-analyze verify $unit: clean"
  done
fi
home="$tmp/home"
step "/usr/bin/rpa doctor"
RPA_HOME="$home" /usr/bin/rpa doctor --connect-env - || fail "/usr/bin/rpa doctor"
step "/usr/bin/rpa demo"
RPA_HOME="$home" timeout 300 /usr/bin/rpa demo --region 330100 > "$tmp/demo.out" || { cat "$tmp/demo.out"; fail "/usr/bin/rpa demo"; }
head -n 3 "$tmp/demo.out"; say "..."; tail -n 2 "$tmp/demo.out"
grep -qE '^[0-9]+ rows' "$tmp/demo.out" || fail "rpa demo printed no rows"

step "apt-get remove rpa"
DEBIAN_FRONTEND=noninteractive as_root apt-get remove -y -qq rpa >/dev/null || fail "apt-get remove rpa"
removed=1
for f in $files_in_pkg /usr/share/doc/rpa; do [ ! -e "$f" ] || fail "apt-get remove left $f"; done
status=$(dpkg-query -W -f='${db:Status-Status}' rpa 2>/dev/null || echo not-installed)
case "$status" in not-installed|config-files) ;; *) fail "after remove, dpkg says rpa is $status";; esac
say "removed; none of its files is left (dpkg: $status)"
echo "check.sh: all artifacts ok"
