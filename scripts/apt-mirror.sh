# Sourced, not run.  Which Debian mirror this machine's apt already uses:
# the harness fetches from the same place (backports, the client guest's
# root, a source package) and never writes a mirror's name into the tree.

# Print the first mirror URI apt uses for the release suite $1.
release_mirror() {
	local suite=$1
	{
		# deb822 stanzas, one paragraph each.
		{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
			awk -v suite="$suite" 'BEGIN { RS = ""; FS = "\n" } {
				uri = ""; deb = 0; hit = 0
				for (l = 1; l <= NF; l++) {
					n = split($l, w, /[ \t]+/)
					if (w[1] == "Types:") for (i = 2; i <= n; i++) deb += w[i] == "deb"
					if (w[1] == "URIs:") uri = w[2]
					if (w[1] == "Suites:") for (i = 2; i <= n; i++) hit += w[i] == suite
				}
				if (deb && hit && uri != "") print uri }'
		# One-line format: deb [options] uri suite components...
		{ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
			sed -n 's/^deb[ \t]\+\(\[[^]]*\][ \t]\+\)\?//p' |
			awk -v suite="$suite" '$2 == suite { print $1 }'
	} | head -n1 | grep .
}

# The mirror of this machine's own release (DEBIAN_MIRROR overrides it).
debian_mirror() {
	if [ -n "${DEBIAN_MIRROR:-}" ]; then
		echo "$DEBIAN_MIRROR"
		return 0
	fi
	release_mirror "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
}
