#!/bin/sh
# Runs the lab's browser on the browser side of the packet network: playwright-core starts this
# script as the browser (runner/browsers/chromium.js), and it enters the browser side's network namespace
# (a path into the lab's /proc, server/packet/inside.js) and becomes $H2LAB_PACKET_BROWSER with
# the same arguments and descriptors (the DevTools pipe on 3 and 4 among them). Without
# H2LAB_PACKET_BROWSER_NETNS (a lab on a loopback of its own, launch.py --loopback) the browser
# stays in this namespace. With H2LAB_PACKET_BROWSER_UID set (browser.js personOutside), it first
# maps launch.py's root back to that user in a user namespace of its own, so Chrome keeps its
# sandbox. The browser gets none of these variables: they are this script's.
netns="$H2LAB_PACKET_BROWSER_NETNS"
browser="${H2LAB_PACKET_BROWSER:?set H2LAB_PACKET_BROWSER to the browser}"
uid="$H2LAB_PACKET_BROWSER_UID"
gid="$H2LAB_PACKET_BROWSER_GID"
unset H2LAB_PACKET_BROWSER_NETNS H2LAB_PACKET_BROWSER H2LAB_PACKET_BROWSER_UID H2LAB_PACKET_BROWSER_GID
if [ -n "$uid" ]; then
  set -- unshare --user --map-user="$uid" --map-group="${gid:?}" -- "$browser" "$@"
else
  set -- "$browser" "$@"
fi
if [ -n "$netns" ]; then
  exec nsenter --net="$netns" -- "$@"
fi
exec "$@"
