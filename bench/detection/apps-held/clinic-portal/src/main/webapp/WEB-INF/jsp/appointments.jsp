<%@ page contentType="text/html;charset=UTF-8" %>
<%@ taglib prefix="c" uri="jakarta.tags.core" %>
<%@ taglib prefix="fmt" uri="jakarta.tags.fmt" %>
<html>
<head>
  <title>My appointments</title>
  <link rel="stylesheet" href="${pageContext.request.contextPath}/static/portal.css">
</head>
<body>
<jsp:include page="header.jsp"/>
<h1>Upcoming appointments</h1>
<p class="greeting">Welcome back, ${param.name}</p>
<table class="appointments">
  <thead>
  <tr><th>When</th><th>Clinician</th><th>Reason</th><th>Status</th><th></th></tr>
  </thead>
  <tbody>
  <c:forEach var="a" items="${appointments}">
    <tr>
      <td><c:out value="${a.startsAt}"/></td>
      <td><c:out value="${a.clinician}"/></td>
      <td><c:out value="${a.reason}"/></td>
      <td class="status-${a.status}"><c:out value="${a.status}"/></td>
      <td>
        <c:if test="${a.status == 'booked'}">
          <form method="post" action="${pageContext.request.contextPath}/api/appointments/${a.id}/cancel">
            <button type="submit">Cancel</button>
          </form>
        </c:if>
      </td>
    </tr>
  </c:forEach>
  </tbody>
</table>
<c:if test="${empty appointments}">
  <p>You have no upcoming appointments.</p>
</c:if>
</body>
</html>
