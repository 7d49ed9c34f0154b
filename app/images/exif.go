package images

import "encoding/binary"

// exifOrientation reads the Orientation tag (0x0112) of IFD0 from the body of a JPEG APP1
// segment ("Exif\0\0" and a TIFF structure), or returns 0 when the segment is not EXIF or
// holds no valid orientation. Only this one tag is read, straight from the bytes the
// decoder already has, so orienting a photo costs no second pass over the file.
func exifOrientation(seg []byte) int {
	if len(seg) < 14 || string(seg[:6]) != "Exif\x00\x00" {
		return 0
	}
	tiff := seg[6:]
	var bo binary.ByteOrder
	switch string(tiff[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 0
	}
	ifd := int(bo.Uint32(tiff[4:8]))
	if ifd < 8 || ifd+2 > len(tiff) {
		return 0
	}
	entries := int(bo.Uint16(tiff[ifd:]))
	for i := range entries {
		e := ifd + 2 + 12*i
		if e+12 > len(tiff) {
			return 0
		}
		if bo.Uint16(tiff[e:]) != 0x0112 {
			continue
		}
		if bo.Uint16(tiff[e+2:]) != 3 || bo.Uint32(tiff[e+4:]) != 1 { // one SHORT
			return 0
		}
		if o := int(bo.Uint16(tiff[e+8:])); o >= 1 && o <= 8 {
			return o
		}
		return 0
	}
	return 0
}
