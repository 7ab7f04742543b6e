/* Interface IDs that mingw-w64's dxguid library lacks (ID3D11Multithread, IDXVAHD_Device).
 * INITGUID makes the headers define them; they are selectany, so dxguid's copies of the
 * others do not clash. */
#define INITGUID
#include <initguid.h>
#include <d3d11_4.h>
#include <d3d9.h>
#include <dxvahd.h>
