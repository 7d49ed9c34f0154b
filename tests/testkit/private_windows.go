package testkit

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// UnderWine reports whether this Windows program runs under Wine, whose ntdll exports
// wine_get_version.
func UnderWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

func privateFileUnknowable() string {
	if UnderWine() {
		return "Wine derives a file's access list from its Unix mode bits (a new file there grants Everyone read) " +
			"and keeps no access list set on it, so the owner-only access Windows gives the user's profile cannot be checked"
	}
	return ""
}

// Well-known SIDs that may hold access to a user's private file: LocalSystem and the
// Administrators group, which Windows grants on every profile folder.
var trustedSIDs = []string{"S-1-5-18", "S-1-5-32-544"}

func checkPrivate(path string) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("read its access list: %w", err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("read its owner: %w", err)
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("read the current user: %w", err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("read its access list: %w", err)
	}
	if dacl == nil {
		return errors.New("it has no access list, which lets everyone in")
	}
	allowed := func(sid *windows.SID) bool {
		if sid.Equals(owner) || sid.Equals(user.User.Sid) {
			return true
		}
		for _, s := range trustedSIDs {
			if sid.String() == s {
				return true
			}
		}
		return false
	}
	const inheritOnly = 0x08 // INHERIT_ONLY_ACE: applies to children, not to this file
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return fmt.Errorf("read entry %d of its access list: %w", i, err)
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&inheritOnly != 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if !allowed(sid) {
			name := sid.String()
			if account, domain, _, err := sid.LookupAccount(""); err == nil {
				name = domain + `\` + account + " (" + name + ")"
			}
			return fmt.Errorf("its access list also lets in %s", name)
		}
	}
	return nil
}
