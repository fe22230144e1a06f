package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// jvalue is a JSON value that keeps object key order, so merging a hook into
// a person's settings.json changes nothing else about the file's shape.
type jvalue struct {
	obj   []jmember // when isObj
	arr   []*jvalue // when isArr
	raw   json.RawMessage
	isObj bool
	isArr bool
}

type jmember struct {
	key string
	val *jvalue
}

func parseJSON(data []byte) (*jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (*jvalue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := &jvalue{isObj: true}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				child, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				v.obj = append(v.obj, jmember{key: key, val: child})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		case '[':
			v := &jvalue{isArr: true}
			for dec.More() {
				child, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, child)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		raw, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		if n, ok := t.(json.Number); ok {
			raw = []byte(n.String())
		}
		return &jvalue{raw: raw}, nil
	}
}

func (v *jvalue) get(key string) *jvalue {
	for _, m := range v.obj {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

func (v *jvalue) set(key string, val *jvalue) {
	for i, m := range v.obj {
		if m.key == key {
			v.obj[i].val = val
			return
		}
	}
	v.obj = append(v.obj, jmember{key: key, val: val})
}

func jstring(s string) *jvalue {
	raw, _ := json.Marshal(s)
	return &jvalue{raw: raw}
}

func (v *jvalue) str() string {
	var s string
	if v != nil && v.raw != nil {
		json.Unmarshal(v.raw, &s)
	}
	return s
}

// render writes v indented by two spaces, the way Claude Code writes it.
func (v *jvalue) render() []byte {
	var b strings.Builder
	v.write(&b, "")
	b.WriteString("\n")
	return []byte(b.String())
}

func (v *jvalue) write(b *strings.Builder, indent string) {
	switch {
	case v.isObj:
		if len(v.obj) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, m := range v.obj {
			k, _ := json.Marshal(m.key)
			b.WriteString(indent + "  " + string(k) + ": ")
			m.val.write(b, indent+"  ")
			if i < len(v.obj)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(indent + "}")
	case v.isArr:
		if len(v.arr) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range v.arr {
			b.WriteString(indent + "  ")
			e.write(b, indent+"  ")
			if i < len(v.arr)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(indent + "]")
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		var x any
		if json.Unmarshal(v.raw, &x) == nil {
			if _, isNum := x.(float64); !isNum {
				enc.Encode(x)
				b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
				return
			}
		}
		b.Write(v.raw)
	}
}
