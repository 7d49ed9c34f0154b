package page

import (
	"reflect"
	"strings"
)

// docField is one row of a PROTOCOL.md table as the Go types define it. The tables are
// derived here, in a test file, because only TestProtocolDocMatchesGoTypes reads them.
type docField struct {
	Name, Type, Limit string
}

// docTypeName is how a Go field type is written in PROTOCOL.md.
func docTypeName(t reflect.Type) string {
	if t == rawMessageType {
		return "json"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64:
		return "int"
	case reflect.Float64:
		return "number"
	case reflect.Bool:
		return "bool"
	case reflect.Slice:
		return docTypeName(t.Elem()) + "[]"
	case reflect.Pointer:
		return docTypeName(t.Elem()) + " or null"
	case reflect.Struct:
		return t.Name()
	}
	return t.String()
}

func docLimit(tag string) string {
	if tag == "" {
		return "-"
	}
	// Pipes are escaped so enum lists do not split the Markdown table cell.
	return strings.ReplaceAll(strings.ReplaceAll(tag, ",", ", "), "|", `\|`)
}

func docFields(t reflect.Type) []docField {
	var out []docField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		out = append(out, docField{Name: name, Type: docTypeName(f.Type), Limit: docLimit(f.Tag.Get("v"))})
	}
	return out
}

// docTables returns every table PROTOCOL.md must contain, keyed "event NAME",
// "command NAME" or "type NAME" (nested types used by events).
func docTables() map[string][]docField {
	tables := map[string][]docField{}
	nested := map[reflect.Type]bool{}
	var collect func(t reflect.Type)
	collect = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			ft := t.Field(i).Type
			for ft.Kind() == reflect.Slice || ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && !nested[ft] {
				nested[ft] = true
				collect(ft)
			}
		}
	}
	for name, mk := range eventTypes {
		t := reflect.TypeOf(mk()).Elem()
		tables["event "+name] = docFields(t)
		collect(t)
	}
	for _, c := range commandTypes {
		tables["command "+c.CommandType()] = docFields(reflect.TypeOf(c))
	}
	for t := range nested {
		tables["type "+t.Name()] = docFields(t)
	}
	return tables
}
