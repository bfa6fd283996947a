#!/usr/bin/env bash
# A real S3 endpoint for the tests, and by hand: a single-host Ceph cluster (one monitor, one
# OSD, pools of size 1, cephx off, no manager) with one RADOS Gateway on 127.0.0.1, all of its
# data, sockets and logs under DIR. Debian's packages only (ceph-mon, ceph-osd, radosgw,
# ceph-common); it installs nothing, and says which package is missing. Ceph's src/vstart.sh is
# the reference for a single-host cluster; this keeps only what RGW needs.
#
#   scripts/rgw.sh start DIR   starts it (about 15 s), prints the endpoint and keys as
#                              shell variables and writes them to DIR/env
#   scripts/rgw.sh stop DIR    stops every daemon it started under DIR and deletes what it
#                              wrote there (and DIR, when that leaves it empty)
#
# DIR/env holds CONTENTLIB_TEST_S3_ENDPOINT, CONTENTLIB_TEST_S3_ACCESS_KEY_ID and
# CONTENTLIB_TEST_S3_SECRET_ACCESS_KEY: `set -a; . DIR/env; set +a` points the S3 tests at it
# (test/support/s3.ts). The OSD keeps objects in BlueStore on a sparse file under DIR
# (RGW_BLUESTORE_GB, default 20, of which the tests write a few hundred MB) with a 64 MiB cache,
# so its memory stays bounded; RGW_OSD_STORE=memstore keeps them in memory instead (a second or
# three faster to start, but memory grows with what is stored: RGW_MEMSTORE_MB caps it, 3072).
set -euo pipefail

usage() {
  echo "usage: $0 start DIR | stop DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
command=$1
dir=$2

need() {
  local tool=$1 package=$2
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: $tool is missing: install Debian's $package (apt-get install $package)" >&2
    exit 1
  fi
}

# A TCP port nobody listens on now (python3 comes with ceph-common).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

stop() {
  local pids=() f pid
  for f in "$dir"/run/*.pid; do
    [ -e "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    # Only a daemon this script started under DIR: its command line names DIR's ceph.conf.
    if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/ceph.conf"; then
      kill "$pid" 2>/dev/null && pids+=("$pid")
    fi
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  # Only what start made: DIR itself goes only when nothing else is left in it.
  rm -rf "$dir/run" "$dir/log" "$dir/mon.a" "$dir/osd.0" "$dir/osd.0.block" "$dir/rgw" \
    "$dir/ceph.conf" "$dir/keyring" "$dir/monmap" "$dir/env" "$dir/env.new"
  rmdir "$dir" 2>/dev/null || true
}

case $command in
stop)
  [ -d "$dir" ] || exit 0
  dir=$(cd "$dir" && pwd)
  stop
  exit 0
  ;;
start) ;;
*) usage ;;
esac

need ceph-mon ceph-mon
need monmaptool ceph-base
need ceph-osd ceph-osd
need radosgw radosgw
need radosgw-admin radosgw
need ceph ceph-common
need python3 python3

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -e "$dir/ceph.conf" ]; then
  echo "error: $dir already holds a cluster (scripts/rgw.sh stop $dir first)" >&2
  exit 1
fi
mkdir -p "$dir/run" "$dir/log" "$dir/mon.a" "$dir/osd.0" "$dir/rgw"
# A failed start leaves no daemon behind.
trap 'status=$?; if [ $status -ne 0 ]; then echo "error: RGW did not start; logs in $dir/log:" >&2; tail -n 20 "$dir"/log/*.log >&2 2>/dev/null || true; stop; fi' EXIT

mon_port=$(free_port)
rgw_port=$(free_port)
fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
conf=$dir/ceph.conf

# Where the OSD keeps objects: memstore (in memory, the fastest start) or bluestore on a sparse
# file under DIR (memory bounded by a small cache, whatever the tests store).
case ${RGW_OSD_STORE:-bluestore} in
memstore)
  osd_store="osd objectstore = memstore
memstore device bytes = $((${RGW_MEMSTORE_MB:-3072} * 1024 * 1024))"
  ;;
bluestore)
  osd_store="osd objectstore = bluestore
bluestore block path = $dir/osd.0.block
bluestore block create = true
bluestore block size = $((${RGW_BLUESTORE_GB:-20} * 1024 * 1024 * 1024))
bluestore fsck on mkfs = false
bluestore fsck on mount = false
bluestore cache autotune = false
bluestore cache size = 67108864
osd memory target = 939524096"
  ;;
*)
  echo "error: RGW_OSD_STORE is memstore or bluestore, not ${RGW_OSD_STORE}" >&2
  exit 2
  ;;
esac

cat >"$conf" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
public network = 127.0.0.1/32
run dir = $dir/run
admin socket = $dir/run/\$name.asok
pid file = $dir/run/\$name.pid
log file = $dir/log/\$name.log
log to stderr = false
err to stderr = false
keyring = $dir/keyring
; cephx off everywhere: nothing but this host talks to it.
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
ms mon client mode = crc
; One OSD: every pool keeps one copy, placed on it, with few placement groups.
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon data avail warn = 1
mon data avail crit = 0
; No manager: nothing waits for one.
mon pg warn min per osd = 0

[mon]
mon data = $dir/mon.\$id
mon cluster log file = $dir/log/cluster.log

[osd]
osd data = $dir/osd.\$id
$osd_store
; Small caches and few threads: a test machine has two cores and other work.
osd op num shards = 1
osd op num threads per shard = 1
osd max object size = 134217728

[client.rgw.test]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $dir/rgw
; radosgw's own defaults ask for cephx and a secure monitor connection, overriding [global]:
; without these it loops on "get_initial_auth_request returned -13".
auth client required = none
ms mon client mode = crc
rgw dns name = 127.0.0.1
rgw thread pool size = 64
; Deleted objects' tails are freed soon instead of after two hours.
rgw gc obj min wait = 10
rgw gc processor period = 10
EOF

# The monitor: a map with one member, then its store.
monmaptool --create --clobber --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null
ceph-authtool --create-keyring --gen-key -n mon. "$dir/keyring" >/dev/null
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring"
ceph-mon -c "$conf" -i a

# The OSD: registered with the monitor, its store made, then started.
osd_uuid=$(python3 -c 'import uuid; print(uuid.uuid4())')
osd_id=$(ceph -c "$conf" --connect-timeout 15 osd new "$osd_uuid")
ceph-osd -c "$conf" -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" >/dev/null 2>&1
ceph-osd -c "$conf" -i "$osd_id"

# The gateway: it makes its own pools at first start.
radosgw -c "$conf" -n client.rgw.test

endpoint=http://127.0.0.1:$rgw_port
for _ in $(seq 600); do
  if python3 -c "import urllib.request, sys; urllib.request.urlopen('$endpoint', timeout=1)" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
python3 -c "import urllib.request; urllib.request.urlopen('$endpoint', timeout=2)" >/dev/null 2>&1 || {
  echo "error: radosgw does not answer on $endpoint" >&2
  exit 1
}

access_key=contentlib$(python3 -c 'import secrets; print(secrets.token_hex(5))')
secret_key=$(python3 -c 'import secrets; print(secrets.token_hex(20))')
radosgw-admin -c "$conf" -n client.rgw.test user create --uid contentlib --display-name contentlib \
  --access-key "$access_key" --secret "$secret_key" >/dev/null

# Written whole, then renamed: whoever waits for DIR/env never reads half of it.
cat >"$dir/env.new" <<EOF
CONTENTLIB_TEST_S3_ENDPOINT=$endpoint
CONTENTLIB_TEST_S3_ACCESS_KEY_ID=$access_key
CONTENTLIB_TEST_S3_SECRET_ACCESS_KEY=$secret_key
EOF
mv "$dir/env.new" "$dir/env"
cat "$dir/env"
