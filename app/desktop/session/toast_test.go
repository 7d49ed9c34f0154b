package session

import (
	"encoding/xml"
	"regexp"
	"strings"
	"testing"
)

func TestToastXMLCarriesTitleAndBodyEscaped(t *testing.T) {
	got := toastXML(Notification{Summary: "New message from Bob & Co", Body: "<b>hi</b> \"there\""})
	want := `<toast><visual><binding template="ToastGeneric"><text>New message from Bob &amp; Co</text><text>&lt;b&gt;hi&lt;/b&gt; &#34;there&#34;</text></binding></visual></toast>`
	if got != want {
		t.Fatalf("toast XML:\n got %s\nwant %s", got, want)
	}
}

func TestUrgentToastsStayLongerAndEmptyLinesAreLeftOut(t *testing.T) {
	got := toastXML(Notification{Summary: "Clanker", Urgent: true})
	want := `<toast duration="long"><visual><binding template="ToastGeneric"><text>Clanker</text></binding></visual></toast>`
	if got != want {
		t.Fatalf("toast XML:\n got %s\nwant %s", got, want)
	}
}

func TestToastXMLIsWellFormedWhateverThePageSends(t *testing.T) {
	hostile := "a\x00b\x01c\x1fd\uFFFEe\tf\ng</text></binding><image src='x'/>]]><!--"
	got := toastXML(IncomingMessage(hostile, hostile, false))
	d := xml.NewDecoder(strings.NewReader(got))
	texts := 0
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("toast XML is not well-formed (%v):\n%s", err, got)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "toast", "visual", "binding":
			case "text":
				texts++
			default:
				t.Fatalf("page text became a <%s> element:\n%s", se.Name.Local, got)
			}
		}
	}
	if texts != 2 {
		t.Fatalf("want 2 <text> elements, got %d:\n%s", texts, got)
	}
}

func TestTheAppUserModelIDIsOneWindowsAccepts(t *testing.T) {
	// At most 128 characters, no spaces; sections of letters and digits, dot-separated.
	if len(AppUserModelID) > 128 || !regexp.MustCompile(`^[A-Za-z0-9]+(\.[A-Za-z0-9]+)+$`).MatchString(AppUserModelID) {
		t.Fatalf("AppUserModelID %q is not a valid id", AppUserModelID)
	}
	if appIDKey != `Software\Classes\AppUserModelId\ClankerDesktop.Clanker` {
		t.Fatalf("registry key %q", appIDKey)
	}
	if v := appIDValues("Clanker"); len(v) != 1 || v["DisplayName"] != "Clanker" {
		t.Fatalf("registry values %v; want only DisplayName=Clanker", v)
	}
}
