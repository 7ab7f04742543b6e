/* Interface IDs that mingw-w64's dxguid library lacks (ID3D11Multithread). INITGUID makes
 * the header define them; they are selectany, so dxguid's copies of the others do not clash. */
#define INITGUID
#include <initguid.h>
#include <d3d11_4.h>
