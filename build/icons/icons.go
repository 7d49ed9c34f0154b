// Package icons holds Clanker's generated tray icons. The pictures (these and the
// application icons under build/) are drawn by ./gen; run `go generate ./build/icons`
// after changing it.
package icons

import _ "embed"

//go:generate go run ./gen -o ..

// TrayOn and TrayOff are the tray icons (PNG, 64 px) for "Clanker is on in this
// conversation" and "off"; TrayOnICO and TrayOffICO are the forms Windows' tray wants.
var (
	//go:embed tray/on-64.png
	TrayOn []byte
	//go:embed tray/off-64.png
	TrayOff []byte
	//go:embed tray/on.ico
	TrayOnICO []byte
	//go:embed tray/off.ico
	TrayOffICO []byte
)
