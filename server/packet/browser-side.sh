#!/bin/sh
# Runs the lab's browser on the browser side of the packet network: playwright-core starts this
# script as the browser (runner/browser.js), and it enters the browser side's network namespace
# (a descriptor launch.py passed down) and becomes $H2LAB_PACKET_BROWSER with the same arguments
# and descriptors (the DevTools pipe on 3 and 4 among them). With H2LAB_PACKET_BROWSER_UID set
# (browser.js personOutside), it first maps launch.py's root back to that user in a user
# namespace of its own, so Chrome keeps its sandbox.
netns="/proc/self/fd/${H2LAB_PACKET_BROWSER_NETNS_FD:?run under server/packet/launch.py}"
browser="${H2LAB_PACKET_BROWSER:?set H2LAB_PACKET_BROWSER to the browser}"
if [ -n "$H2LAB_PACKET_BROWSER_UID" ]; then
  exec nsenter --net="$netns" -- unshare --user --map-user="$H2LAB_PACKET_BROWSER_UID" --map-group="${H2LAB_PACKET_BROWSER_GID:?}" -- "$browser" "$@"
fi
exec nsenter --net="$netns" -- "$browser" "$@"
