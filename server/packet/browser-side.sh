#!/bin/sh
# Runs the lab's browser on the browser side of the packet network: playwright-core starts this
# script as the browser (runner/browser.js), and it enters the browser side's network namespace
# (a descriptor launch.py passed down) and becomes $H2LAB_PACKET_BROWSER with the same arguments
# and descriptors (the DevTools pipe on 3 and 4 among them).
exec nsenter --net="/proc/self/fd/${H2LAB_PACKET_BROWSER_NETNS_FD:?run under server/packet/launch.py}" -- "${H2LAB_PACKET_BROWSER:?set H2LAB_PACKET_BROWSER to the browser}" "$@"
