package page

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
)

// maxQuoted bounds the untrusted text an error message quotes, in runes.
const maxQuoted = 41

// rule is the parsed form of one `v` struct tag.
type rule struct {
	req   bool
	max   int // strings: characters; ints: value; RawMessage: bytes; -1 = none
	min   int
	hasMn bool
	items int // slices: maximum length; -1 = none
	enum  []string
}

func parseRule(tag string) rule {
	r := rule{max: -1, items: -1}
	for _, part := range strings.Split(tag, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "req":
			r.req = true
		case "max":
			r.max, _ = strconv.Atoi(v)
		case "min":
			r.min, _ = strconv.Atoi(v)
			r.hasMn = true
		case "items":
			r.items, _ = strconv.Atoi(v)
		case "enum":
			r.enum = strings.Split(v, "|")
		}
	}
	return r
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// validate walks a decoded value and checks every field against its `v` tag, so a
// page-supplied event can only contain what the protocol allows. path names the field in
// error messages ("message.images[2].src").
func validate(v reflect.Value, path string) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		p := name
		if path != "" {
			p = path + "." + name
		}
		if err := validateField(v.Field(i), parseRule(f.Tag.Get("v")), p); err != nil {
			return err
		}
	}
	return nil
}

func validateField(fv reflect.Value, r rule, p string) error {
	if fv.Type() == rawMessageType {
		if r.max >= 0 && fv.Len() > r.max {
			return fmt.Errorf("%s: %d bytes, limit %d", p, fv.Len(), r.max)
		}
		return nil
	}
	switch fv.Kind() {
	case reflect.String:
		s := fv.String()
		if r.req && s == "" {
			return fmt.Errorf("%s: required but empty", p)
		}
		if r.max >= 0 && utf8.RuneCountInString(s) > r.max {
			return fmt.Errorf("%s: %d characters, limit %d", p, utf8.RuneCountInString(s), r.max)
		}
		if len(r.enum) > 0 && !(s == "" && !r.req) && !contains(r.enum, s) {
			return fmt.Errorf("%s: %q is not one of %s", p, engine.Clip(s, maxQuoted), strings.Join(r.enum, ", "))
		}
	case reflect.Int, reflect.Int64:
		n := fv.Int()
		if r.hasMn && n < int64(r.min) {
			return fmt.Errorf("%s: %d is below %d", p, n, r.min)
		}
		if r.max >= 0 && n > int64(r.max) {
			return fmt.Errorf("%s: %d is above %d", p, n, r.max)
		}
		if r.req && n == 0 {
			return fmt.Errorf("%s: required", p)
		}
	case reflect.Slice:
		if r.items >= 0 && fv.Len() > r.items {
			return fmt.Errorf("%s: %d items, limit %d", p, fv.Len(), r.items)
		}
		for j := 0; j < fv.Len(); j++ {
			ep := fmt.Sprintf("%s[%d]", p, j)
			ev := fv.Index(j)
			if ev.Kind() == reflect.String {
				elem := r
				elem.items = -1
				if err := validateField(ev, elem, ep); err != nil {
					return err
				}
				continue
			}
			if err := validate(ev, ep); err != nil {
				return err
			}
		}
	case reflect.Struct, reflect.Pointer:
		return validate(fv, p)
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
