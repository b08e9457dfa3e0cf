#!/bin/sh
# Write the drop-in that gives xiaoting.service the supplementary groups existing here:
# `audio` for ALSA, `gpio` for the button where the distribution has that group (Raspberry
# Pi OS does, plain Debian does not; naming a missing group stops the unit with 216/GROUP).
# Usage: systemd/groups.sh DROPIN_DIR   (install.sh: /etc/systemd/system/xiaoting.service.d)
set -eu
dir="${1:?usage: groups.sh DROPIN_DIR}"
groups=""
for g in audio gpio; do
  if getent group "$g" >/dev/null 2>&1; then groups="$groups $g"; fi
done
mkdir -p "$dir"
{
  echo "# Written by install.sh: the supplementary groups that exist on this machine."
  echo "[Service]"
  echo "SupplementaryGroups=${groups# }"
} > "$dir/groups.conf.tmp"
mv "$dir/groups.conf.tmp" "$dir/groups.conf"
echo "${groups# }"
