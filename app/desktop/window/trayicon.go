package window

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"

	"github.com/clanker-desktop/clanker/build/icons"
)

// trayWantsICO says the tray takes its icon as a Windows .ico file. fyne's systray on
// Windows writes the bytes it is given to a file and loads that with
// LoadImage(IMAGE_ICON, LR_LOADFROMFILE), which reads only the ICO format: PNG bytes load
// nothing and the tray shows no icon at all (fyne-io/systray issue 85). Elsewhere
// systray takes PNG (a StatusNotifierItem pixmap on Linux, an NSImage on macOS).
var trayWantsICO = runtime.GOOS == "windows"

// trayIcon is the tray picture for the state: "on" or "off", with the unread badge for
// badge > 0, as ICO (ico) or PNG.
func trayIcon(on bool, badge int, ico bool) []byte {
	if !ico {
		base := icons.TrayOff
		if on {
			base = icons.TrayOn
		}
		return badgedIcon(base, badge)
	}
	base := icons.TrayOffICO
	if on {
		base = icons.TrayOnICO
	}
	out, err := badgedICO(base, badge)
	if err != nil {
		// The committed icons always parse (a test checks it); without the badge the
		// icon still shows.
		return base
	}
	return out
}

// icoEntry is one picture of an ICO file: its size in pixels and its PNG bytes.
type icoEntry struct {
	size int
	png  []byte
}

// readICO splits an ICO file whose entries are PNG images (as build/icons/gen writes
// them) into its entries.
func readICO(b []byte) ([]icoEntry, error) {
	if len(b) < 6 {
		return nil, errors.New("ico: shorter than its header")
	}
	var head [3]uint16
	_ = binary.Read(bytes.NewReader(b[:6]), binary.LittleEndian, &head)
	if head[0] != 0 || head[1] != 1 || head[2] == 0 {
		return nil, fmt.Errorf("ico: header %v is not an icon file with entries", head)
	}
	n := int(head[2])
	if len(b) < 6+16*n {
		return nil, errors.New("ico: directory cut short")
	}
	out := make([]icoEntry, 0, n)
	for i := 0; i < n; i++ {
		e := b[6+16*i : 6+16*(i+1)]
		size := int(e[0])
		if size == 0 {
			size = 256
		}
		length := int(binary.LittleEndian.Uint32(e[8:]))
		offset := int(binary.LittleEndian.Uint32(e[12:]))
		if offset < 0 || length <= 0 || offset+length > len(b) || offset+length < offset {
			return nil, fmt.Errorf("ico: entry %d points outside the file", i)
		}
		data := b[offset : offset+length]
		if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			return nil, fmt.Errorf("ico: entry %d is not a PNG image", i)
		}
		out = append(out, icoEntry{size: size, png: data})
	}
	return out, nil
}

// writeICO builds an ICO file from PNG entries (valid since Windows Vista).
func writeICO(entries []icoEntry) []byte {
	var head, body bytes.Buffer
	_ = binary.Write(&head, binary.LittleEndian, [3]uint16{0, 1, uint16(len(entries))})
	offset := 6 + 16*len(entries)
	for _, e := range entries {
		dim := uint8(e.size)
		if e.size >= 256 {
			dim = 0 // 0 stands for 256 in an ICO directory entry
		}
		head.Write([]byte{dim, dim, 0, 0})
		_ = binary.Write(&head, binary.LittleEndian, [2]uint16{1, 32})
		_ = binary.Write(&head, binary.LittleEndian, [2]uint32{uint32(len(e.png)), uint32(offset)})
		body.Write(e.png)
		offset += len(e.png)
	}
	return append(head.Bytes(), body.Bytes()...)
}

// badgedICO draws the unread badge onto every size of an ICO file, so Windows finds a
// badged picture whichever size it picks for the notification area. badge <= 0 gives
// ico unchanged.
func badgedICO(ico []byte, badge int) ([]byte, error) {
	if badge <= 0 {
		return ico, nil
	}
	entries, err := readICO(ico)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		entries[i].png = badgedIcon(entries[i].png, badge)
	}
	return writeICO(entries), nil
}
