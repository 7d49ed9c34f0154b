package page

import (
	"encoding/json"
	"reflect"
)

// FieldSchema is one command argument's rules as the bridge checks them.
type FieldSchema struct {
	Kind  string   `json:"kind"` // string | int | bool
	Req   bool     `json:"req,omitempty"`
	Max   *int     `json:"max,omitempty"`
	Min   *int     `json:"min,omitempty"`
	Enum  []string `json:"enum,omitempty"`
	Items int      `json:"items,omitempty"`
}

// Schema returns the command schema the bridge validates against, derived from the same
// struct tags Go validates with, plus the shared limits and the seal placeholder. The
// bundler writes it into the bridge (inject/gen/schema.gen.js).
func Schema() map[string]any {
	cmds := map[string]map[string]FieldSchema{}
	for _, c := range commandTypes {
		fields := map[string]FieldSchema{}
		t := reflect.TypeOf(c)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			r := parseRule(f.Tag.Get("v"))
			fs := FieldSchema{Req: r.req, Enum: r.enum}
			switch f.Type.Kind() {
			case reflect.String:
				fs.Kind = "string"
			case reflect.Int:
				fs.Kind = "int"
			case reflect.Bool:
				fs.Kind = "bool"
			default:
				fs.Kind = f.Type.Kind().String()
			}
			if r.max >= 0 {
				m := r.max
				fs.Max = &m
			}
			if r.hasMn {
				m := r.min
				fs.Min = &m
			}
			fields[jsonName(f)] = fs
		}
		cmds[c.CommandType()] = fields
	}
	return map[string]any{
		"version":         ProtocolVersion,
		"maxEventBytes":   MaxEventBytes,
		"maxTextLen":      MaxTextLen,
		"maxImageBytes":   MaxImageBytes,
		"imageChunkBytes": ImageChunkBytes,
		"userQuietMs":     UserQuietMillis,
		"commands":        cmds,
		"seal":            SealPlaceholder,
	}
}

// SchemaJSON is Schema as stable, indented JSON.
func SchemaJSON() []byte {
	b, err := json.MarshalIndent(Schema(), "", "  ")
	if err != nil {
		panic(err) // only plain maps and slices: cannot fail
	}
	return b
}
