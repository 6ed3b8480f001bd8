#!/usr/bin/env bash
# Real hosts for tests and the demo: systemd-nspawn machines booting Debian with systemd as PID 1
# and OpenSSH, each on its own loopback address with the standard ports, etcd a systemd unit
# (Type=notify, an environment file), the layout kubespray and etcdadm use. Everything comes from
# Debian's packages; the root file system is built once and cached like the etcd packages.
#
#   machines.sh rootfs                      build (or reuse) the cached root file system
#   machines.sh start NAME ADDRESS DIR KEY.pub ETCD_VERSION
#                                           boot machine NAME on ADDRESS from a copy in DIR/NAME,
#                                           root's and user runbooks' authorized key KEY.pub
#                                           (runbooks with deploy/sudoers/etcd-runbooks), etcd ETCD_VERSION in
#                                           /opt/etcd/versions/<v> (current -> it) as unit etcd;
#                                           prints "ADDRESS <host key line>" for known_hosts
#   machines.sh stop DIR NAME               power it off (SIGKILL after 20 s) and remove its copy
#   machines.sh kill DIR NAME               pull the plug: SIGKILL, the copy is kept
#   machines.sh remove DIR NAME             pull the plug and remove its copy (a test's machines at its end)
#
# Needs root (systemd-nspawn). The machine's etcd listens on ADDRESS:2379 and ADDRESS:2380 and is
# not started: the caller writes /etc/etcd/etcd.env and starts it.
set -euo pipefail

CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
SUITE=bookworm
# openssh-sftp-server is only recommended by openssh-server, which debootstrap does not install;
# the runbooks copy files over SFTP, as most production hosts allow
PACKAGES=systemd,systemd-sysv,openssh-server,openssh-sftp-server,dbus,iproute2,sudo
# the cache is keyed by what it holds: a changed package list builds a new one
ROOTFS="$CACHE/machines/rootfs-$SUITE-$(echo "$PACKAGES" | sha256sum | cut -c1-8)"

need_tools() {
  if ! command -v systemd-nspawn >/dev/null || ! command -v debootstrap >/dev/null; then
    # test.sh installs the browser beside this: wait for dpkg's lock rather than fail
    apt-get -o DPkg::Lock::Timeout=600 install -y -q systemd-container debootstrap >/dev/null
  fi
}

build_rootfs() {
  need_tools
  if [ -f "$ROOTFS/.complete" ]; then return 0; fi
  rm -rf "$ROOTFS.partial"
  mkdir -p "$(dirname "$ROOTFS")"
  debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS.partial" >&2
  # host keys are made per machine at start; none is shared between copies
  rm -f "$ROOTFS.partial"/etc/ssh/ssh_host_*
  touch "$ROOTFS.partial/.complete"
  rm -rf "$ROOTFS"
  mv "$ROOTFS.partial" "$ROOTFS"
}

RUNBOOKS_USER=runbooks
SUDOERS="$(cd "$(dirname "$0")/../sudoers" && pwd)/etcd-runbooks"

# the numeric uid or gid of the runbooks user inside the machine being built ($root)
runbooks_id() {
  local field=3
  [ "$1" = g ] && field=4
  cut -d: -f1,3,4 "$root/etc/passwd" | awk -F: -v u="$RUNBOOKS_USER" -v f="$field" '$1 == u { print $(f - 1) }'
}

start_machine() {
  local name=$1 address=$2 dir=$3 key=$4 version=$5
  build_rootfs
  local root="$dir/$name"
  local bin="$CACHE/etcd/$version/bin"
  [ -x "$bin/etcd" ] || { echo "etcd $version is not in $bin: run deploy/scripts/fetch-etcd.sh" >&2; exit 2; }
  rm -rf "$root"
  mkdir -p "$dir"
  cp -a "$ROOTFS" "$root"
  ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$root/etc/ssh/ssh_host_ed25519_key"
  ssh-keygen -q -t rsa -b 3072 -N '' -C "$name" -f "$root/etc/ssh/ssh_host_rsa_key"
  printf 'ListenAddress %s\nPasswordAuthentication no\n' "$address" > "$root/etc/ssh/sshd_config.d/etcd-runbooks.conf"
  install -d -m 700 "$root/root/.ssh"
  install -m 600 "$key" "$root/root/.ssh/authorized_keys"
  # the runbooks' own SSH user: not root, with exactly the sudo rules docs/sudo.md lists, owning
  # installDir (/opt/etcd) as the runbooks expect
  chroot "$root" useradd -m -s /bin/sh "$RUNBOOKS_USER"
  install -d -m 700 -o "$(runbooks_id u)" -g "$(runbooks_id g)" "$root/home/$RUNBOOKS_USER/.ssh"
  install -m 600 -o "$(runbooks_id u)" -g "$(runbooks_id g)" "$key" "$root/home/$RUNBOOKS_USER/.ssh/authorized_keys"
  install -m 440 "$SUDOERS" "$root/etc/sudoers.d/etcd-runbooks"
  echo "$name" > "$root/etc/hostname"
  # sudo looks its own host name up; without this every sudo warns on stderr
  printf '127.0.0.1 localhost\n%s %s\n' "$address" "$name" > "$root/etc/hosts"
  install -d "$root/opt/etcd/versions/$version"
  cp "$bin"/etcd* "$root/opt/etcd/versions/$version/"
  ln -sfn "versions/$version" "$root/opt/etcd/current"
  chown -R "$(runbooks_id u):$(runbooks_id g)" "$root/opt/etcd"
  install -d -m 700 "$root/var/lib/etcd"
  install -d "$root/etc/etcd"
  : > "$root/etc/etcd/etcd.env"
  cat > "$root/etc/systemd/system/etcd.service" <<'UNIT'
[Unit]
Description=etcd
After=network.target

[Service]
Type=notify
EnvironmentFile=/etc/etcd/etcd.env
ExecStart=/opt/etcd/current/etcd
Restart=on-failure
RestartSec=2s
TimeoutStartSec=60s
LimitNOFILE=65536

[Install]
WantedBy=multi-user.target
UNIT
  setsid systemd-nspawn -q -D "$root" --register=no --keep-unit -b -M "$name" \
    > "$dir/$name.console" 2>&1 < /dev/null &
  echo $! > "$dir/$name.pid"
  # bounded: a machine that has not booted in 60 s is a failure
  for _ in $(seq 1 120); do
    if (exec 3<>"/dev/tcp/$address/22") 2>/dev/null; then
      echo "$address $(cut -d' ' -f1,2 "$root/etc/ssh/ssh_host_ed25519_key.pub")"
      return 0
    fi
    sleep 0.5
  done
  echo "machine $name did not open $address:22 within 60 s; console: $dir/$name.console" >&2
  kill -KILL "$(cat "$dir/$name.pid")" 2>/dev/null || true
  exit 1
}

stop_machine() {
  local dir=$1 name=$2 signal=${3:-TERM}
  local pidfile="$dir/$name.pid"
  if [ -f "$pidfile" ]; then
    local pid
    pid=$(cat "$pidfile")
    if [ "$signal" = KILL ]; then
      # pulling the plug: SIGKILL to the machine's init (PID 1 of its namespace) takes every
      # process in the machine with it; killing systemd-nspawn alone would leave them running
      for init in $(pgrep -P "$pid" 2>/dev/null); do kill -KILL "$init" 2>/dev/null || true; done
    fi
    # systemd-nspawn turns SIGTERM into an orderly poweroff of the machine
    kill "-$signal" "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  fi
  if [ "$signal" != KILL ]; then rm -rf "${dir:?}/$name"; fi
}

case "${1:-}" in
  rootfs) build_rootfs ;;
  start) shift; start_machine "$@" ;;
  stop) stop_machine "$2" "$3" TERM ;;
  kill) stop_machine "$2" "$3" KILL ;;
  remove) stop_machine "$2" "$3" KILL; rm -rf "${2:?}/${3:?}" ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
